import { addDecimals, compareDecimals, decimalOfNumber, formatMoney, isDecimal, sumDecimals } from './money'

describe('formatMoney', () => {
  it('never shows an unknown price as free', () => {
    expect(formatMoney(null)).toBe('unpriced')
    expect(formatMoney(undefined, 'EUR')).toBe('unpriced')
    expect(formatMoney('0')).toBe('$0.00')
  })

  it('shows the digits of a cost below a cent', () => {
    expect(formatMoney('0.00042')).toBe('$0.00042')
    expect(formatMoney('0.000421875')).toBe('$0.0004219')
    expect(formatMoney('0.000421875', 'USD', { exact: true })).toBe('$0.000421875')
    // Python writes small Decimals with an exponent.
    expect(formatMoney('4.2E-7')).toBe('$0.00000042')
    expect(formatMoney('1E-7', 'USD', { exact: true })).toBe('$0.0000001')
    expect(formatMoney('0E-10')).toBe('$0.00')
  })

  it('rounds by size, half away from zero, on the digits themselves', () => {
    expect(formatMoney('1234.565')).toBe('$1,234.57')
    expect(formatMoney('2.5')).toBe('$2.50')
    expect(formatMoney('0.0153')).toBe('$0.0153')
    expect(formatMoney('0.12345')).toBe('$0.1235')
    expect(formatMoney('0.5')).toBe('$0.50')
    expect(formatMoney('0.99996')).toBe('$1.00')
    // 1.005 is 1.00499999… as a float; the string is rounded as written.
    expect(formatMoney('1.005')).toBe('$1.01')
    expect(formatMoney('123456789.125', 'USD', { exact: true })).toBe('$123,456,789.125')
  })

  it('keeps huge amounts exact and signs negatives', () => {
    expect(formatMoney('90071992547409931.01')).toBe('$90,071,992,547,409,931.01')
    expect(formatMoney('-1.2')).toBe('-$1.20')
    expect(formatMoney('-0.000001')).toBe('-$0.000001')
    expect(formatMoney('-0.001', 'USD')).toBe('-$0.001')
  })

  it('names currencies without a symbol after the amount', () => {
    expect(formatMoney('12.3', 'CHF')).toBe('12.30 CHF')
    expect(formatMoney('12.3', 'EUR')).toBe('€12.30')
  })

  it('takes floats from the older fields without their binary noise', () => {
    expect(formatMoney(0.1 + 0.2)).toBe('$0.30')
    expect(formatMoney(0.1 + 0.2, 'USD', { exact: true })).toBe('$0.30')
    expect(formatMoney(4.2e-7)).toBe('$0.00000042')
    expect(decimalOfNumber(1e21)).toBe('1000000000000000000000')
  })

  it('passes text that is not a number through', () => {
    expect(formatMoney('n/a')).toBe('n/a')
    expect(isDecimal('1.2.3')).toBe(false)
    expect(isDecimal('.5')).toBe(true)
    expect(isDecimal('')).toBe(false)
  })
})

describe('decimal arithmetic', () => {
  it('adds exactly', () => {
    expect(addDecimals('0.1', '0.2')).toBe('0.3')
    expect(addDecimals('0.00042', '1E-7')).toBe('0.0004201')
    expect(addDecimals('-1.5', '1.25')).toBe('-0.25')
    expect(addDecimals('5', '-5')).toBe('0')
  })

  it('sums the known amounts; all unknown is null, not 0', () => {
    expect(sumDecimals(['0.1', null, '0.2'])).toBe('0.3')
    expect(sumDecimals([null, undefined])).toBeNull()
    expect(sumDecimals([])).toBeNull()
    expect(sumDecimals(['2.50'])).toBe('2.5')
  })

  it('compares', () => {
    expect(compareDecimals('10', '9.999')).toBe(1)
    expect(compareDecimals('0.10', '0.1')).toBe(0)
    expect(compareDecimals('-1', '0')).toBe(-1)
    expect(() => compareDecimals('x', '1')).toThrow('not a decimal amount: x')
  })
})
