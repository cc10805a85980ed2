// Prices per million tokens, shown from the API's decimal strings (never through a float).
import type { Price } from '@/lib/api/types'

const SYMBOLS: Record<string, string> = { USD: '$', EUR: '€', GBP: '£' }

/** "2.5000" → "2.50", "10" → "10", "0.000150" → "0.00015": no float rounding, cents kept. */
export function trimAmount(amount: string | number): string {
  const text = String(amount).trim()
  if (!/^-?\d+(\.\d+)?$/.test(text)) return text
  const [whole = '0', fraction = ''] = text.split('.')
  const digits = fraction.replace(/0+$/, '')
  return digits ? `${whole}.${digits.length === 1 ? `${digits}0` : digits}` : whole
}

/** "$2.50", "12 CHF". */
export function formatAmount(amount: string | number, currency = 'USD'): string {
  const symbol = SYMBOLS[currency]
  return symbol ? `${symbol}${trimAmount(amount)}` : `${trimAmount(amount)} ${currency}`
}

/** The price in force, in one line: "$2.50 in · $10 out / M tokens", or "unpriced" (never $0). */
export function formatPrice(price: Price | null | undefined): string {
  if (!price) return 'unpriced'
  return `${formatAmount(price.input_per_mtok, price.currency)} in · ${formatAmount(price.output_per_mtok, price.currency)} out / M tokens`
}
