// The fields of a deps form, read from an agent's deps_schema (a JSON Schema object), and the
// values typed into them turned into what the chat request sends as `deps`.
import type { JsonSchema } from '@/lib/api/types'

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum'

export interface DepsField {
  name: string
  label: string
  kind: FieldKind
  required: boolean
  description: string | null
  /** The choices of an `enum` field. */
  options: unknown[]
}

/** What the inputs hold: text for typed fields, a boolean for a checkbox, an option's index for an enum. */
export type RawValues = Record<string, string | boolean>

const KINDS = new Set(['string', 'number', 'integer', 'boolean'])

function kindOf(property: Record<string, unknown>): FieldKind | null {
  if (Array.isArray(property.enum) && property.enum.length > 0) return 'enum'
  const type = Array.isArray(property.type) ? property.type.find((t) => t !== 'null') : property.type
  return typeof type === 'string' && KINDS.has(type) ? (type as FieldKind) : null
}

/** The form's fields: the schema's properties of a kind a field can hold (others are left out). */
export function depsFields(schema: JsonSchema | null | undefined): DepsField[] {
  const properties = schema?.properties
  if (!properties || typeof properties !== 'object') return []
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
  const fields: DepsField[] = []
  for (const [name, value] of Object.entries(properties as Record<string, unknown>)) {
    if (!value || typeof value !== 'object') continue
    const property = value as Record<string, unknown>
    const kind = kindOf(property)
    if (!kind) continue
    fields.push({
      name,
      label: typeof property.title === 'string' && property.title ? property.title : name,
      kind,
      required: required.has(name),
      description: typeof property.description === 'string' ? property.description : null,
      options: kind === 'enum' ? (property.enum as unknown[]) : [],
    })
  }
  return fields
}

/** The inputs' contents for stored values (what a conversation remembers). */
export function rawOf(values: Record<string, unknown> | null | undefined, fields: DepsField[]): RawValues {
  const raw: RawValues = {}
  for (const field of fields) {
    const value = values?.[field.name]
    if (value === undefined || value === null) continue
    if (field.kind === 'boolean') raw[field.name] = value === true
    else if (field.kind === 'enum') {
      const index = field.options.findIndex((option) => JSON.stringify(option) === JSON.stringify(value))
      if (index >= 0) raw[field.name] = String(index)
    } else raw[field.name] = String(value)
  }
  return raw
}

/**
 * The `deps` to send: empty inputs are left out (a required one is then refused by the server,
 * which names it); a number that does not parse is sent as typed, for the server to say so.
 */
export function valuesOf(raw: RawValues, fields: DepsField[]): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const field of fields) {
    const value = raw[field.name]
    if (value === undefined) continue
    if (field.kind === 'boolean') {
      values[field.name] = value === true
      continue
    }
    const text = String(value)
    if (text.trim() === '') continue
    if (field.kind === 'enum') values[field.name] = field.options[Number(text)]
    else if (field.kind === 'number' || field.kind === 'integer') {
      const number = Number(text)
      values[field.name] = Number.isFinite(number) ? number : text
    } else values[field.name] = text
  }
  return values
}
