// Bundle diet: markdown without raw HTML never carries a `style` attribute; this keeps the
// signature react-markdown's renderer calls, parsing plain `name: value;` declarations.
export default function styleToObject(style: string, iterator?: (property: string, value: string) => void): Record<string, string> | null {
  const result: Record<string, string> = {}
  for (const declaration of style.split(';')) {
    const colon = declaration.indexOf(':')
    if (colon === -1) continue
    const property = declaration.slice(0, colon).trim()
    const value = declaration.slice(colon + 1).trim()
    if (!property || !value) continue
    if (iterator) iterator(property, value)
    else result[property] = value
  }
  return iterator ? null : result
}
