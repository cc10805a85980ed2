// Bundle diet: every browser the dashboard supports has structuredClone.
export default function clone<T>(value: T): T {
  return structuredClone(value)
}
