// A workflow definition as the page draws it: its steps in order, each with the values its message
// takes (`input_mapping`), and where each value comes from (the run's input, an earlier step, or
// a literal), plus the run's outputs.

export interface MappingView {
  field: string
  value: string
  /** `input`, the name of an earlier step, or `literal`. */
  from: string
}

export interface StepView {
  name: string
  agent: string
  outputKey: string
  mappings: MappingView[]
}

export interface DefinitionView {
  steps: StepView[]
  outputs: MappingView[]
}

const STEP = /^\$\.steps\.([A-Za-z_][A-Za-z0-9_]*)\b/

/** Where a mapping value is read from. */
export function sourceOf(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('$')) return 'literal'
  if (value.startsWith('$.input')) return 'input'
  return STEP.exec(value)?.[1] ?? 'literal'
}

function mappings(value: unknown): MappingView[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return []
  return Object.entries(value as Record<string, unknown>).map(([field, raw]) => ({
    field,
    value: typeof raw === 'string' ? raw : JSON.stringify(raw),
    from: sourceOf(raw),
  }))
}

/** The steps and outputs of a definition, as far as it can be read (a broken one reads as empty). */
export function viewOf(definition: unknown): DefinitionView {
  const raw = (definition ?? {}) as { steps?: unknown; outputs?: unknown }
  const steps = Array.isArray(raw.steps) ? raw.steps : []
  return {
    steps: steps.map((step, index) => {
      const s = (step ?? {}) as Record<string, unknown>
      const name = typeof s.name === 'string' ? s.name : `step ${index + 1}`
      return {
        name,
        agent: typeof s.agent_name === 'string' ? s.agent_name : '?',
        outputKey: typeof s.output_key === 'string' ? s.output_key : name,
        mappings: mappings(s.input_mapping),
      }
    }),
    outputs: mappings(raw.outputs),
  }
}

/** The definition as the editor shows it: indented JSON. */
export const shown = (definition: unknown): string => JSON.stringify(definition, null, 2)

/** The text typed, as a definition object; a message when it is not a JSON object. */
export function parsed(text: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(text)
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>
    return 'The definition is a JSON object: {"version": 1, "steps": [...], "outputs": {...}}.'
  } catch (error) {
    return `Not JSON: ${(error as Error).message}`
  }
}
