// JSON Schema (as pydantic emits it) turned into rows of a parameter table.
import type { JsonSchema } from './api/types'

export interface ParamRow {
  name: string
  type: string
  required: boolean
  description: string | null
  values: string[] | null
  defaultValue: string | null
  depth: number
}

type Schema = Record<string, unknown>

const asSchema = (value: unknown): Schema | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : null

/** Follow a local `#/$defs/Name` reference against the root schema. */
export function resolveRef(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema
  let target: unknown = root
  for (const key of ref.slice(2).split('/')) target = asSchema(target)?.[key]
  return asSchema(target) ?? schema
}

/** A short type label: string, integer, Order, string[], string | null → "string?". */
export function schemaType(schema: Schema | null, root: Schema = schema ?? {}): string {
  if (!schema) return 'any'
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? 'object'
  if (Array.isArray(schema.enum)) return 'enum'
  if ('const' in schema) return 'const'
  const union = (schema.anyOf ?? schema.oneOf) as unknown
  if (Array.isArray(union)) {
    const types = union.map((item) => schemaType(asSchema(item), root))
    const nullable = types.includes('null')
    const rest = [...new Set(types.filter((type) => type !== 'null'))]
    const label = rest.join(' | ') || 'null'
    return nullable && rest.length ? `${label}?` : label
  }
  const type = schema.type
  if (Array.isArray(type)) {
    const rest = type.filter((t) => t !== 'null').map(String)
    return rest.join(' | ') + (type.includes('null') ? '?' : '')
  }
  if (type === 'array') {
    const items = asSchema(schema.items)
    const inner = items ? schemaType(items, root) : 'any'
    return inner.includes(' ') ? `(${inner})[]` : `${inner}[]`
  }
  if (typeof type === 'string') return type
  if (schema.properties) return 'object'
  return 'any'
}

function enumValues(schema: Schema): string[] | null {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value))
  const union = (schema.anyOf ?? schema.oneOf) as unknown
  if (Array.isArray(union)) {
    for (const item of union) {
      const values = asSchema(item)?.enum
      if (Array.isArray(values)) return values.map((value) => JSON.stringify(value))
    }
  }
  return null
}

/** One row per property, with nested objects' properties indented beneath (up to `maxDepth`). */
export function paramRows(schema: JsonSchema | null, required?: string[], maxDepth = 2): ParamRow[] {
  if (!schema) return []
  const root = schema as Schema
  const rows: ParamRow[] = []
  const walk = (node: Schema, requiredNames: string[], prefix: string, depth: number) => {
    const properties = asSchema(node.properties) ?? {}
    for (const [name, raw] of Object.entries(properties)) {
      const property = asSchema(raw) ?? {}
      const resolved = resolveRef(property, root)
      const description = (property.description ?? resolved.description ?? null) as string | null
      rows.push({
        name: prefix + name,
        type: schemaType(property, root),
        required: requiredNames.includes(name),
        description: typeof description === 'string' ? description : null,
        values: enumValues(resolved) ?? enumValues(property),
        defaultValue: 'default' in property ? JSON.stringify(property.default) : null,
        depth,
      })
      const nested = resolved.properties ? resolved : null
      if (nested && depth + 1 < maxDepth) walk(nested, (nested.required as string[]) ?? [], `${prefix}${name}.`, depth + 1)
    }
  }
  walk(root, required ?? ((root.required as string[] | undefined) ?? []), '', 0)
  return rows
}
