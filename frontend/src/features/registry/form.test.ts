import { ApiError } from '@/lib/api/client'
import type { Preset } from '@/lib/api/types'
import { agentPath } from '@/features/conversations/paths'
import { FIELDS, jsonObjectError, placeErrors, PRICE_FIELDS, toBody, toForm } from './form'
import { formatAmount, formatPrice, trimAmount } from './price'
import { secretLabel } from './SecretField'
import { settingValue, shownValue } from './SettingsTab'
import { tagEntry } from './ToolsField'

const preset: Preset = {
  key: 'warm', name: 'Warm', model: 'demo', temperature: 0.7, max_tokens: null, top_p: null, streaming: false, timeout_s: 30,
  provider_options: { seed: 1 }, is_sandbox: false, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
}

describe('form ↔ JSON', () => {
  it('a new entry starts from the defaults', () => {
    const values = toForm(FIELDS.presets, null)
    expect(values).toMatchObject({ key: '', model: '', temperature: '', streaming: true, is_sandbox: false, provider_options: '{}' })
    expect(toForm(FIELDS.providers, null)).toMatchObject({ kind: 'openai', enabled: true, api_key: { mode: 'replace', value: '' } })
    expect(toForm(PRICE_FIELDS, null)).toMatchObject({ currency: 'USD', valid_from: '' })
  })

  it('an entry round-trips: numbers typed, empties null, the key only when creating', () => {
    const values = toForm(FIELDS.presets, preset as unknown as Record<string, unknown>)
    expect(values).toMatchObject({ temperature: '0.7', max_tokens: '', timeout_s: '30', streaming: false })
    expect(JSON.parse(values.provider_options as string)).toEqual({ seed: 1 })
    const { body, errors } = toBody(FIELDS.presets, { ...values, max_tokens: ' 256 ', top_p: '' }, false)
    expect(errors).toEqual({})
    expect(body).toEqual({ name: 'Warm', model: 'demo', temperature: 0.7, max_tokens: 256, top_p: null, timeout_s: 30, streaming: false, provider_options: { seed: 1 }, is_sandbox: false })
    expect(toBody(FIELDS.presets, values, true).body.key).toBe('warm')
  })

  it('checks what is cheap to check before asking the server', () => {
    const values = { ...toForm(FIELDS.presets, null), temperature: 'warm', max_tokens: '1.5', provider_options: '{"a": ' }
    const { errors } = toBody(FIELDS.presets, values, true)
    expect(errors.key).toBe('Required.')
    expect(errors.model).toBe('Required.')
    expect(errors.temperature).toBe('Enter a number.')
    expect(errors.max_tokens).toBe('Enter a whole number.')
    expect(errors.provider_options).toMatch(/^Not valid JSON/)
    expect(jsonObjectError('[1, 2]')).toMatch(/JSON object/)
    expect(jsonObjectError('')).toBeNull()
    expect(jsonObjectError('{"temperature": 0.2}')).toBeNull()
  })

  it('nullable selects send null when empty; other text fields send ""', () => {
    const values = { ...toForm(FIELDS.agents, null), key: 'deckhand', preset_key: '', tools: ['lookup', 'tag:support'] }
    const { body } = toBody(FIELDS.agents, values, true)
    expect(body).toMatchObject({ key: 'deckhand', name: '', preset_key: null, tone_key: null, tools: ['lookup', 'tag:support'], enabled: true })
  })

  it("an agent's schemas live in its spec: shown from it, written back beside its other keys, removed when emptied", () => {
    const schema = { type: 'object', properties: { id: { type: 'string' } } }
    const agent = { key: 'a', name: '', tools: [], spec: { retries: 3, output_schema: schema } }
    const values = toForm(FIELDS.agents, agent)
    expect(JSON.parse(values.output_schema as string)).toEqual(schema)
    expect(values.deps_schema).toBe('')
    expect(toBody(FIELDS.agents, values, false, agent).body.spec).toEqual({ retries: 3, output_schema: schema })
    const changed = toBody(FIELDS.agents, { ...values, output_schema: '', deps_schema: '{"type": "object"}' }, false, agent)
    expect(changed.body.spec).toEqual({ retries: 3, deps_schema: { type: 'object' } })
    expect(toBody(FIELDS.agents, { ...toForm(FIELDS.agents, null), key: 'b' }, true).body.spec).toEqual({})
    expect(toBody(FIELDS.agents, { ...values, output_schema: '{"type": ' }, false, agent).errors.output_schema).toMatch(/^Not valid JSON/)
    expect(agent.spec).toEqual({ retries: 3, output_schema: schema })
  })

  it('the API key: absent to keep, a string to replace, null to remove', () => {
    const base = toForm(FIELDS.providers, { key: 'p', kind: 'openai', secret_set: true })
    expect('api_key' in toBody(FIELDS.providers, base, false).body).toBe(false)
    expect(toBody(FIELDS.providers, { ...base, api_key: { mode: 'replace', value: 'sk-new' } }, false).body.api_key).toBe('sk-new')
    expect(toBody(FIELDS.providers, { ...base, api_key: { mode: 'remove', value: '' } }, false).body.api_key).toBeNull()
    expect(toBody(FIELDS.providers, { ...base, api_key: { mode: 'replace', value: '' } }, false).errors.api_key).toMatch(/new key/)
    // A new provider without a key simply has none.
    expect('api_key' in toBody(FIELDS.providers, { ...toForm(FIELDS.providers, null), key: 'p' }, true).body).toBe(false)
    expect(secretLabel(true, 'abcd')).toBe('set · ••••abcd')
    expect(secretLabel(false, null)).toBe('not set')
  })

  it('prices stay decimal strings, checked but never turned into floats', () => {
    const values = { ...toForm(PRICE_FIELDS, null), input_per_mtok: '0.10', output_per_mtok: '0.4', cache_read_per_mtok: '' }
    expect(toBody(PRICE_FIELDS, values, true)).toEqual({
      body: { input_per_mtok: '0.10', output_per_mtok: '0.4', cache_read_per_mtok: null, cache_write_per_mtok: null, currency: 'USD' },
      errors: {},
    })
    expect(toBody(PRICE_FIELDS, { ...values, output_per_mtok: '1,5' }, true).errors.output_per_mtok).toMatch(/amount/)
    const dated = toBody(PRICE_FIELDS, { ...values, valid_from: '2027-01-01T00:00' }, true).body.valid_from
    expect(dated).toBe(new Date('2027-01-01T00:00').toISOString())
  })
})

describe('field errors', () => {
  const names = FIELDS.presets.map((field) => field.name)

  it('each 422 field error beside its field, the rest as one message', () => {
    const error = new ApiError(422, 'invalid_request', 'body.temperature: must be at most 2', [
      { location: 'body.temperature', message: 'Input should be less than or equal to 2' },
      { location: 'body.provider_options.seed', message: 'must be an integer' },
    ])
    expect(placeErrors(error, names)).toEqual({
      fields: { temperature: 'Input should be less than or equal to 2', provider_options: 'must be an integer' },
      message: null,
    })
    const model = new ApiError(422, 'invalid_request', 'body: top_p needs a model', [{ location: 'body', message: 'top_p needs a model' }])
    expect(placeErrors(model, names)).toEqual({ fields: {}, message: 'top_p needs a model' })
  })

  it("a spec field's error goes beside that field, naming the part of the schema at fault", () => {
    const agents = FIELDS.agents.map((field) => field.name)
    const error = new ApiError(422, 'invalid_request', 'body.spec.output_schema.type: bad', [
      { location: 'body.spec.output_schema.type', message: 'not a valid JSON Schema' },
      { location: 'body.spec.deps_schema', message: 'must describe an object' },
      { location: 'body.spec.retries', message: 'must be an integer' },
    ])
    expect(placeErrors(error, agents, ['spec'])).toEqual({
      fields: { output_schema: 'type: not a valid JSON Schema', deps_schema: 'must describe an object' },
      message: 'spec.retries: must be an integer',
    })
  })

  it('a 409 or 404 is said plainly', () => {
    expect(placeErrors(new ApiError(409, 'conflict', "A preset with key 'warm' exists already."), names)).toEqual({
      fields: {},
      message: "A preset with key 'warm' exists already.",
    })
    expect(placeErrors(new Error('Synapse is not answering.'), names).message).toBe('Synapse is not answering.')
  })
})

describe('prices', () => {
  it('shows amounts from their decimal strings, and unpriced as unpriced', () => {
    expect(trimAmount('2.5')).toBe('2.50')
    expect(trimAmount('10.000000')).toBe('10')
    expect(trimAmount('0.0000001')).toBe('0.0000001')
    expect(trimAmount('0.15')).toBe('0.15')
    expect(formatAmount('3', 'EUR')).toBe('€3')
    expect(formatAmount('3', 'CHF')).toBe('3 CHF')
    expect(formatPrice(null)).toBe('unpriced')
    expect(formatPrice({ input_per_mtok: '1.25', output_per_mtok: '10', cache_read_per_mtok: null, cache_write_per_mtok: null, currency: 'USD', valid_from: '' })).toBe(
      '$1.25 in · $10 out / M tokens',
    )
  })
})

describe('small pieces', () => {
  it('settings: the box typed as the JSON value', () => {
    expect(settingValue(' 30 ')).toBe(30)
    expect(settingValue('')).toBeNull()
    expect(settingValue('de')).toBe('de')
    expect(settingValue('true')).toBe(true)
    expect(shownValue(512)).toBe('512')
    expect(shownValue(null)).toBe('')
  })
  it('tag entries and configured agents’ paths', () => {
    expect(tagEntry('support')).toBe('tag:support')
    expect(tagEntry(' tag:billing ')).toBe('tag:billing')
    expect(tagEntry('tag:')).toBeNull()
    expect(agentPath('config:deckhand')).toBe('/agents/config:deckhand')
    expect(agentPath('demo.support agent')).toBe('/agents/demo.support%20agent')
  })
})
