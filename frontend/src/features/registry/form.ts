// The registry forms as data: which fields each kind has, an entry → form values, form values →
// the JSON body the API takes (with the checks worth making before asking the server), and the
// server's 422 field errors → the field each belongs to.
import { ApiError } from '@/lib/api/client'
import { messageOf } from '@/components/common/States'

export type FieldType = 'text' | 'textarea' | 'number' | 'integer' | 'decimal' | 'datetime' | 'bool' | 'select' | 'json' | 'tools' | 'secret'

export interface FieldSpec {
  name: string
  label: string
  type: FieldType
  required?: boolean
  /** An empty value is sent as null (not as ""). */
  nullable?: boolean
  /** Sent when creating; shown read-only when editing (the key). */
  createOnly?: boolean
  hint?: string
  placeholder?: string
  /** Spans the form's whole width. */
  wide?: boolean
  /** Where a select's choices (or a text field's suggestions) come from. */
  choices?: 'provider-kinds' | 'providers' | 'models' | 'presets' | 'tones' | 'tools'
  initial?: FormValue
  /** Sent inside this object of the body (`spec`), beside the entry's other keys there. */
  group?: 'spec'
}

/** The API key: kept as it is, replaced by `value`, or removed. */
export interface SecretValue {
  mode: 'keep' | 'replace' | 'remove'
  value: string
}
export type FormValue = string | boolean | string[] | SecretValue
export type FormValues = Record<string, FormValue>
export type FieldErrors = Record<string, string>

export const PROVIDER_KINDS = ['openai', 'anthropic', 'google', 'groq', 'mistral', 'openai-compatible']

const KEY: FieldSpec = {
  name: 'key',
  label: 'Key',
  type: 'text',
  required: true,
  createOnly: true,
  hint: 'Letters, digits, dot, dash and underscore; it cannot change later.',
}
const NAME: FieldSpec = { name: 'name', label: 'Name', type: 'text' }

export const FIELDS = {
  providers: [
    KEY,
    { name: 'kind', label: 'Kind', type: 'select', required: true, choices: 'provider-kinds', initial: 'openai' },
    NAME,
    { name: 'base_url', label: 'Base URL', type: 'text', nullable: true, placeholder: 'https://…/v1', hint: 'Required for openai-compatible.' },
    { name: 'api_key', label: 'API key', type: 'secret' },
    { name: 'options', label: 'Options', type: 'json' },
    { name: 'enabled', label: 'Enabled', type: 'bool', initial: true },
  ],
  models: [
    { ...KEY, required: false, nullable: true, placeholder: 'provider:name', hint: 'How presets and the model selector name it; empty: provider:name.' },
    { name: 'provider_key', label: 'Provider', type: 'text', required: true, choices: 'providers', hint: 'A registry provider, or openai, anthropic, …' },
    { name: 'name', label: 'Name at the provider', type: 'text', required: true },
    { name: 'label', label: 'Label', type: 'text' },
    { name: 'context_window', label: 'Context window', type: 'integer' },
    { name: 'max_output_tokens', label: 'Max output tokens', type: 'integer' },
    { name: 'meta', label: 'Metadata', type: 'json' },
    { name: 'enabled', label: 'Enabled', type: 'bool', initial: true },
  ],
  presets: [
    KEY,
    NAME,
    { name: 'model', label: 'Model', type: 'text', required: true, choices: 'models', placeholder: 'openai:gpt-5, demo, …' },
    { name: 'temperature', label: 'Temperature', type: 'number', hint: '0 to 2' },
    { name: 'max_tokens', label: 'Max tokens', type: 'integer' },
    { name: 'top_p', label: 'Top p', type: 'number', hint: '0 to 1' },
    { name: 'timeout_s', label: 'Timeout (seconds)', type: 'number' },
    { name: 'streaming', label: 'Streaming', type: 'bool', initial: true },
    { name: 'provider_options', label: 'Provider options', type: 'json', hint: 'Model settings for this provider, as JSON.' },
    { name: 'is_sandbox', label: 'Sandbox', type: 'bool', hint: 'Left out of listings; still found by key.' },
  ],
  tones: [
    KEY,
    NAME,
    { name: 'emoji', label: 'Emoji', type: 'text' },
    { name: 'instructions', label: 'Instructions', type: 'textarea', hint: 'Appended to the instructions of every agent with this tone.' },
  ],
  agents: [
    KEY,
    NAME,
    { name: 'description', label: 'Description', type: 'text', wide: true },
    { name: 'instructions', label: 'Instructions', type: 'textarea' },
    { name: 'preset_key', label: 'Preset', type: 'select', nullable: true, choices: 'presets' },
    { name: 'tone_key', label: 'Tone', type: 'select', nullable: true, choices: 'tones' },
    { name: 'tools', label: 'Tools', type: 'tools', choices: 'tools', hint: 'Tools by name, or every tool with a tag (tag:support).' },
    {
      name: 'output_schema',
      label: 'Output schema',
      type: 'json',
      group: 'spec',
      nullable: true,
      placeholder: '{"type": "object", "properties": {…}, "required": […]}',
      hint: 'A JSON Schema of an object: the agent answers with structured output of that shape. Empty: a text answer.',
    },
    {
      name: 'deps_schema',
      label: 'Deps schema',
      type: 'json',
      group: 'spec',
      nullable: true,
      placeholder: '{"type": "object", "properties": {…}}',
      hint: "A JSON Schema of the run's deps: the playground asks for its properties and the tools read them. Empty: no deps.",
    },
    { name: 'is_sandbox', label: 'Sandbox', type: 'bool', hint: 'Left out of listings; still found by key.' },
    { name: 'enabled', label: 'Enabled', type: 'bool', initial: true },
  ],
} satisfies Record<string, FieldSpec[]>

export const PRICE_FIELDS: FieldSpec[] = [
  { name: 'input_per_mtok', label: 'Input', type: 'decimal', required: true, placeholder: '2.50' },
  { name: 'output_per_mtok', label: 'Output', type: 'decimal', required: true, placeholder: '10.00' },
  { name: 'cache_read_per_mtok', label: 'Cache read', type: 'decimal', nullable: true },
  { name: 'cache_write_per_mtok', label: 'Cache write', type: 'decimal', nullable: true },
  { name: 'currency', label: 'Currency', type: 'text', required: true, initial: 'USD' },
  { name: 'valid_from', label: 'Valid from', type: 'datetime', hint: 'Empty: from now on.' },
]

/** The object a field's value lives in: the entry itself, or its `group` (`spec`). */
function holder(field: FieldSpec, entry: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!entry || !field.group) return entry
  const group = entry[field.group]
  return group && typeof group === 'object' && !Array.isArray(group) ? (group as Record<string, unknown>) : null
}

/** The form values showing `entry`, or a new entry's defaults. */
export function toForm(fields: FieldSpec[], entry: Record<string, unknown> | null): FormValues {
  const values: FormValues = {}
  for (const field of fields) {
    const value = holder(field, entry)?.[field.name]
    if (field.type === 'bool') values[field.name] = typeof value === 'boolean' ? value : field.initial === true
    else if (field.type === 'tools') values[field.name] = Array.isArray(value) ? value.map(String) : []
    else if (field.type === 'secret') values[field.name] = { mode: entry ? 'keep' : 'replace', value: '' }
    else if (field.type === 'json')
      values[field.name] = value && typeof value === 'object' && Object.keys(value).length ? JSON.stringify(value, null, 2) : field.nullable ? '' : '{}'
    else if (value === null || value === undefined) values[field.name] = entry ? '' : ((field.initial as string | undefined) ?? '')
    else values[field.name] = String(value)
  }
  return values
}

/** Why `text` is not a JSON object, or null when it is one. */
export function jsonObjectError(text: string): string | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text.trim() || '{}')
  } catch (cause) {
    return `Not valid JSON: ${messageOf(cause)}`
  }
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? null : 'Must be a JSON object, such as {"key": "value"}.'
}

const DECIMAL = /^\d+(\.\d+)?$/

/** One field's value as the API takes it; `undefined` leaves the field out of the body. */
function bodyValue(field: FieldSpec, value: FormValue, creating: boolean): { value?: unknown; error?: string } {
  if (field.type === 'bool' || field.type === 'tools') return { value }
  if (field.type === 'secret') {
    const secret = value as SecretValue
    if (secret.mode === 'remove') return creating ? {} : { value: null }
    if (secret.mode === 'keep') return {}
    if (secret.value) return { value: secret.value }
    return creating ? {} : { error: 'Enter the new key, or cancel the replacement.' }
  }
  const text = field.type === 'textarea' ? (value as string) : (value as string).trim()
  if (field.type === 'json') {
    const error = jsonObjectError(text)
    if (error) return { error }
    const parsed = JSON.parse(text || '{}') as Record<string, unknown>
    return field.nullable && !Object.keys(parsed).length ? { value: null } : { value: parsed }
  }
  if (text.trim() === '') {
    if (field.required) return { error: 'Required.' }
    if (field.type === 'datetime') return {}
    return { value: field.nullable || field.type === 'number' || field.type === 'integer' || field.type === 'decimal' ? null : '' }
  }
  if (field.type === 'number' || field.type === 'integer') {
    const number = Number(text)
    if (!Number.isFinite(number)) return { error: 'Enter a number.' }
    if (field.type === 'integer' && !Number.isInteger(number)) return { error: 'Enter a whole number.' }
    return { value: number }
  }
  if (field.type === 'decimal') return DECIMAL.test(text) ? { value: text } : { error: 'Enter an amount such as 2.50 (digits and one dot).' }
  if (field.type === 'datetime') {
    const date = new Date(text)
    return Number.isNaN(date.getTime()) ? { error: 'Enter a date and time.' } : { value: date.toISOString() }
  }
  return { value: text }
}

/**
 * The JSON body for these values (the key only when creating), or the errors found first. A field of
 * a `group` goes into that object, which starts from `entry`'s (its other keys are kept; an empty
 * nullable field removes its key).
 */
export function toBody(
  fields: FieldSpec[],
  values: FormValues,
  creating: boolean,
  entry: Record<string, unknown> | null = null,
): { body: Record<string, unknown>; errors: FieldErrors } {
  const body: Record<string, unknown> = {}
  const errors: FieldErrors = {}
  for (const field of fields) {
    if (field.createOnly && !creating) continue
    const value = values[field.name]
    if (value === undefined) continue
    const result = bodyValue(field, value, creating)
    if (result.error) errors[field.name] = result.error
    else if (!('value' in result)) continue
    else if (field.group) {
      const group = (body[field.group] ??= { ...holder(field, entry) }) as Record<string, unknown>
      if (result.value === null) delete group[field.name]
      else group[field.name] = result.value
    } else body[field.name] = result.value
  }
  return { body, errors }
}

/**
 * Place an API error on the form: each 422 field error beside its field (`body.temperature` →
 * `temperature`; a field of a group by its own name, the part of the value at fault first:
 * `body.spec.output_schema.type` → `output_schema`, "type: …"), and whatever belongs to no field
 * (a 409, a 404, a model-level error) as one message.
 */
export function placeErrors(error: unknown, names: string[], groups: string[] = []): { fields: FieldErrors; message: string | null } {
  if (!(error instanceof ApiError)) return { fields: {}, message: messageOf(error) }
  const fields: FieldErrors = {}
  const rest: string[] = []
  for (const { location, message } of error.fields) {
    const path = location.replace(/^body(\.|$)/, '')
    const parts = path.split('.')
    const grouped = groups.includes(parts[0] ?? '') && names.includes(parts[1] ?? '')
    const name = (grouped ? parts[1] : parts[0]) ?? ''
    const inside = grouped ? parts.slice(2).join('.') : ''
    const said = inside ? `${inside}: ${message}` : message
    if (names.includes(name)) fields[name] = fields[name] ? `${fields[name]} ${said}` : said
    else rest.push(path ? `${path}: ${message}` : message)
  }
  if (rest.length) return { fields, message: rest.join(' · ') }
  return { fields, message: Object.keys(fields).length ? null : error.message }
}

export const SINGULAR = { providers: 'provider', models: 'model', presets: 'preset', tones: 'tone', agents: 'agent' } as const
