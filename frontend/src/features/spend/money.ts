// Money from the API's decimal strings, added and shown exactly: a string is parsed into an
// integer count of units (a BigInt) and a scale, never through a float. A null amount is
// unpriced (the price is unknown), which is never shown as $0.

interface Dec {
  negative: boolean
  /** The absolute value is `units / 10 ** scale`. */
  units: bigint
  scale: number
}

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/
const MAX_EXPONENT = 400

/** "12.50", "-0.00042", "1E-7" (as Python writes small Decimals) → a Dec; null when it is not a number. */
function parse(value: string): Dec | null {
  const match = DECIMAL.exec(value.trim())
  if (!match) return null
  const [, sign, whole = '', fraction = '', exponent = '0'] = match
  if (!whole && !fraction) return null
  const shift = Number.parseInt(exponent, 10)
  if (Math.abs(shift) > MAX_EXPONENT) return null
  let units = BigInt(`${whole}${fraction}` || '0')
  let scale = fraction.length - shift
  if (scale < 0) {
    units *= 10n ** BigInt(-scale)
    scale = 0
  }
  return { negative: sign === '-' && units !== 0n, units, scale }
}

function rescale(d: Dec, scale: number): bigint {
  return d.units * 10n ** BigInt(scale - d.scale)
}

/** Rounded half away from zero to `places` decimals. */
function round(d: Dec, places: number): Dec {
  if (d.scale <= places) return d
  const divisor = 10n ** BigInt(d.scale - places)
  let units = d.units / divisor
  if ((d.units % divisor) * 2n >= divisor) units += 1n
  return { negative: d.negative && units !== 0n, units, scale: places }
}

/** The plain digits: whole part and fraction, trailing zeros of the fraction dropped. */
function digits(d: Dec): { whole: string; fraction: string } {
  const text = d.units.toString().padStart(d.scale + 1, '0')
  const whole = text.slice(0, text.length - d.scale)
  const fraction = text.slice(text.length - d.scale).replace(/0+$/, '')
  return { whole, fraction }
}

function plain(d: Dec): string {
  const { whole, fraction } = digits(d)
  return `${d.negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`
}

function signed(d: Dec, scale: number): bigint {
  const units = rescale(d, scale)
  return d.negative ? -units : units
}

function fromSigned(units: bigint, scale: number): Dec {
  return { negative: units < 0n, units: units < 0n ? -units : units, scale }
}

/** Whether `value` is a decimal number the API could send. */
export function isDecimal(value: string): boolean {
  return parse(value) !== null
}

function required(value: string): Dec {
  const d = parse(value)
  if (!d) throw new Error(`not a decimal amount: ${value}`)
  return d
}

/** `a + b`, exactly ("0.1" + "0.2" is "0.3"). */
export function addDecimals(a: string, b: string): string {
  const x = required(a)
  const y = required(b)
  const scale = Math.max(x.scale, y.scale)
  return plain(fromSigned(signed(x, scale) + signed(y, scale), scale))
}

/** The exact sum of the known amounts; null when none is known (all unpriced). */
export function sumDecimals(values: readonly (string | null | undefined)[]): string | null {
  let sum: string | null = null
  for (const value of values) {
    if (value === null || value === undefined) continue
    sum = sum === null ? plain(required(value)) : addDecimals(sum, value)
  }
  return sum
}

/** -1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compareDecimals(a: string, b: string): number {
  const x = required(a)
  const y = required(b)
  const scale = Math.max(x.scale, y.scale)
  const difference = signed(x, scale) - signed(y, scale)
  return difference === 0n ? 0 : difference < 0n ? -1 : 1
}

/**
 * A float (an older API field, a chart tick) as a decimal string, without its binary noise:
 * 0.1 + 0.2 → "0.3", 4.2e-7 → "0.00000042".
 */
export function decimalOfNumber(value: number): string {
  if (!Number.isFinite(value)) return '0'
  const d = parse(value.toPrecision(12))
  return d ? plain(d) : '0'
}

/** For geometry only (bar heights, a bar's fill), never for what is shown as an amount. */
export function toNumber(value: string | null | undefined): number {
  if (value === null || value === undefined) return 0
  const number = Number(value)
  return Number.isFinite(number) ? number : 0
}

const SYMBOLS: Record<string, string> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥' }
const SIGNIFICANT = 4

function grouped(whole: string): string {
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** The digits to show: exact (every digit), or rounded by size (cents; 4 places under $1; 4 significant digits under a cent). */
function shown(d: Dec, exact: boolean): string {
  let value = d
  if (!exact) {
    const { whole, fraction } = digits(d)
    if (whole !== '0') value = round(d, 2)
    else if (/^0?[1-9]/.test(fraction)) value = round(d, 4)
    else {
      const leadingZeros = fraction.length - fraction.replace(/^0+/, '').length
      value = round(d, leadingZeros + SIGNIFICANT)
    }
  }
  const { whole, fraction } = digits(value)
  return `${grouped(whole)}.${fraction.padEnd(2, '0')}`
}

/**
 * "$1,234.57", "$0.0153", "$0.00042", "12.30 CHF"; "unpriced" for null (an unknown price is not
 * free). `exact` shows every digit the API sent ("$0.000421875").
 */
export function formatMoney(value: string | number | null | undefined, currency = 'USD', { exact = false }: { exact?: boolean } = {}): string {
  if (value === null || value === undefined) return 'unpriced'
  const text = typeof value === 'number' ? decimalOfNumber(value) : value
  const d = parse(text)
  if (!d) return text
  const amount = shown(d, exact)
  const sign = d.negative && /[1-9]/.test(amount) ? '-' : ''
  const symbol = SYMBOLS[currency]
  return symbol ? `${sign}${symbol}${amount}` : `${sign}${amount} ${currency}`
}
