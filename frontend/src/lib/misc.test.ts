import { pageWindow } from '@/components/ui/pagination'
import { cn } from './cn'
import { formatCompact, formatCost, formatDuration, formatModel } from './format'
import { normalizeUsage, replayItems } from './replay'
import { paramRows, schemaType } from './schema'

describe('cn', () => {
  it('lets a later utility of the same kind win', () => {
    expect(cn('h-9 px-3 text-sm text-muted-foreground', 'h-8 text-xs')).toBe('px-3 text-muted-foreground h-8 text-xs')
    expect(cn('rounded-2xl rounded-br-md', 'hover:bg-accent bg-card', false && 'x')).toBe('rounded-2xl rounded-br-md hover:bg-accent bg-card')
    expect(cn('border border-dashed border-primary/40', 'border-destructive/40')).toBe('border border-dashed border-destructive/40')
    expect(cn('font-mono font-medium', 'font-semibold')).toBe('font-mono font-semibold')
    expect(cn('text-left text-xs text-muted-foreground', 'text-right')).toBe('text-xs text-muted-foreground text-right')
  })
})

describe('pageWindow', () => {
  it.each([
    [1, 5, [1, 2, 3, 4, 5]],
    [1, 20, [1, 2, null, 20]],
    [10, 20, [1, null, 9, 10, 11, null, 20]],
    [20, 20, [1, null, 19, 20]],
  ])('page %i of %i', (page, pages, expected) => expect(pageWindow(page, pages)).toEqual(expected))
})

describe('format', () => {
  it('never shows an unknown price as free', () => {
    expect(formatCost(null)).toBe('unpriced')
    expect(formatCost(0)).toBe('$0')
    expect(formatCost(0.00213)).toBe('$0.0021')
    expect(formatCost(12.5)).toBe('$12.50')
  })
  it('formats durations, counts and models', () => {
    expect(formatDuration(45)).toBe('45 ms')
    expect(formatDuration(1830)).toBe('1.83 s')
    expect(formatDuration(95_000)).toBe('1m 35s')
    expect(formatCompact(3480)).toBe('3.5k')
    expect(formatCompact(1_200_000)).toBe('1.2M')
    expect(formatModel('openai', 'gpt-4o')).toBe('openai / gpt-4o')
    expect(formatModel(null, null)).toBe('no model set')
  })
})

describe('schema → parameter rows', () => {
  const schema = {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to search for.' },
      limit: { type: 'integer', default: 3 },
      priority: { enum: ['low', 'high'], type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      customer: { $ref: '#/$defs/Customer' },
    },
    required: ['query', 'customer'],
    $defs: { Customer: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] } },
  }
  it('one row per parameter, nested objects beneath', () => {
    const rows = paramRows(schema)
    expect(rows.map((r) => [r.name, r.type, r.required])).toEqual([
      ['query', 'string', true],
      ['limit', 'integer', false],
      ['priority', 'enum', false],
      ['tags', 'string[]', false],
      ['note', 'string?', false],
      ['customer', 'Customer', true],
      ['customer.email', 'string', true],
    ])
    expect(rows[0]!.description).toBe('Words to search for.')
    expect(rows[1]!.defaultValue).toBe('3')
    expect(rows[2]!.values).toEqual(['"low"', '"high"'])
  })
  it('labels unions and unknowns', () => {
    expect(schemaType({ type: ['integer', 'null'] })).toBe('integer?')
    expect(schemaType({ anyOf: [{ type: 'integer' }, { type: 'string' }] })).toBe('integer | string')
    expect(schemaType(null)).toBe('any')
  })
})

describe('replay', () => {
  it("reads stored usage in pydantic-ai's names", () => {
    expect(normalizeUsage({ input_tokens: 5, output_tokens: 2, output_reasoning_tokens: 7, cache_read_tokens: 1 })).toMatchObject({
      input_tokens: 5,
      reasoning_tokens: 7,
      cache_read_tokens: 1,
    })
  })
  it('an interrupted answer is "stopped"; a failed one is shown with its error card', () => {
    const base = { content: '', created_at: '', copied_from_id: null, parts: [], usage: null, input_tokens: null, output_tokens: null, cost: null, duration_ms: null, meta: null }
    const items = replayItems([
      { id: 'a', role: 'assistant', status: 'failed', ...base },
      { id: 'e', role: 'error', status: 'complete', content: 'boom', created_at: '', copied_from_id: null, details: null },
      { id: 'b', role: 'assistant', status: 'interrupted', ...base },
    ])
    expect(items.map((i) => i.kind === 'assistant' && i.stopped)).toEqual([false, false, true])
  })
})

describe('apiUrl (a dashboard mounted under a prefix)', () => {
  it('prefixes API paths once, and leaves everything else alone', async () => {
    const { apiUrl } = await import('./base')
    expect(apiUrl('/api/agents', '')).toBe('/api/agents')
    expect(apiUrl('/api/agents', '/synapse')).toBe('/synapse/api/agents')
    expect(apiUrl('/synapse/api/attachments/1/0', '/synapse')).toBe('/synapse/api/attachments/1/0')
    expect(apiUrl('https://example.com/x', '/synapse')).toBe('https://example.com/x')
    expect(apiUrl('//evil.example/x', '/synapse')).toBe('//evil.example/x')
  })
})
