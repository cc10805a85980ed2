// Numbers, money, durations and dates, formatted the same way on every page.

const integer = new Intl.NumberFormat('en-US')

/** 1240 → "1,240". */
export function formatInt(value: number | null | undefined): string {
  return integer.format(value ?? 0)
}

/** 3480 → "3.5k", 1_200_000 → "1.2M": for tables and chips. */
export function formatCompact(value: number | null | undefined): string {
  const n = value ?? 0
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${trim(n / 1000)}k`
  return `${trim(n / 1_000_000)}M`
}

function trim(n: number): string {
  return (n >= 100 ? n.toFixed(0) : n.toFixed(1)).replace(/\.0$/, '')
}

/** "1 tool", "2 tools", "1,240 tools"; `many` for a plural that is not `one` + "s". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatInt(count)} ${count === 1 ? one : many}`
}

/** A cost in dollars; null means the price is unknown ("unpriced"), which is not the same as free. */
export function formatCost(cost: number | null | undefined, currency = 'USD'): string {
  if (cost === null || cost === undefined) return 'unpriced'
  const symbol = currency === 'USD' ? '$' : `${currency} `
  if (cost === 0) return `${symbol}0`
  if (cost < 0.0001) return `<${symbol}0.0001`
  if (cost < 1) return `${symbol}${cost.toFixed(4).replace(/0+$/, '').replace(/\.$/, '')}`
  return `${symbol}${cost.toFixed(2)}`
}

/** 45 → "45 ms", 1830 → "1.83 s", 95_000 → "1m 35s". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  const minutes = Math.floor(ms / 60_000)
  return `${minutes}m ${Math.round((ms % 60_000) / 1000)}s`
}

/** 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${trim(bytes / 1024)} KB`
  return `${trim(bytes / (1024 * 1024))} MB`
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

export function formatDateTime(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date)
}

/** "just now", "5 min ago", "3 h ago", "2 d ago", then a date. */
export function formatRelative(iso: string, now = Date.now()): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const seconds = Math.round((now - date.getTime()) / 1000)
  if (seconds < 45) return 'just now'
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`
  if (seconds < 7 * 86_400) return `${Math.round(seconds / 86_400)} d ago`
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(date)
}

/** "openai / gpt-4o", or just the model when the provider is unknown. */
export function formatModel(provider: string | null | undefined, name: string | null | undefined): string {
  if (!name) return 'no model set'
  return provider ? `${provider} / ${name}` : name
}
