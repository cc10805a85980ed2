// Spending limits as the page shows and edits them: labels, the form's values ↔ the API's body
// (with the checks worth making before asking the server), the server's 422 field errors → the
// field each belongs to, a limit's headroom and its window in its own time zone.
import { ApiError } from '@/lib/api/client'
import type { LimitBody, LimitPeriod, LimitScope, SpendingLimit } from '@/lib/api/spend'
import { messageOf } from '@/components/common/States'
import { compareDecimals, isDecimal, toNumber } from './money'

export const SCOPE_HINT: Record<LimitScope, string> = {
  tenant: 'One seen in calls, or a new type:id, e.g. firm:7',
  user: 'One seen in calls, or a new type:id, e.g. user:42',
  agent: 'A discovered or configured agent',
  preset: 'A registry preset',
}

export const PERIOD_LABEL: Record<LimitPeriod, string> = {
  calendar_day: 'Per calendar day',
  calendar_month: 'Per calendar month',
  sliding_day: 'Any 24 hours',
  sliding_month: 'Any 30 days',
}

export interface LimitDraft {
  scope: LimitScope
  scope_id: string
  period: LimitPeriod
  amount: string
  currency: string
  timezone: string
  enabled: boolean
}

export type LimitField = keyof LimitDraft
export type LimitErrors = Partial<Record<LimitField, string>>
const FIELD_NAMES: LimitField[] = ['scope', 'scope_id', 'period', 'amount', 'currency', 'timezone', 'enabled']

/** The form's values for a limit, or for a new one (currency and time zone empty: the server's defaults). */
export function draftOf(limit: SpendingLimit | null): LimitDraft {
  if (!limit) return { scope: 'agent', scope_id: '', period: 'calendar_month', amount: '', currency: '', timezone: '', enabled: true }
  const { scope, scope_id, period, amount, currency, timezone, enabled } = limit
  return { scope, scope_id, period, amount, currency, timezone, enabled }
}

const POSITIVE = /^\d+(\.\d+)?$/

/**
 * The JSON body to send (a new limit: every field given; an edit: only what changed), or the errors
 * that are plain without asking: an empty scope id, an amount that is not a number above zero.
 */
export function bodyOf(draft: LimitDraft, original: SpendingLimit | null): { body: LimitBody; errors: LimitErrors } {
  const errors: LimitErrors = {}
  const amount = draft.amount.trim()
  if (!draft.scope_id.trim()) errors.scope_id = 'Required.'
  if (!amount) errors.amount = 'Required.'
  else if (!POSITIVE.test(amount) || !isDecimal(amount)) errors.amount = 'A number such as 25 or 12.50.'
  else if (compareDecimals(amount, '0') <= 0) errors.amount = 'Must be more than 0.'
  const values: LimitBody = {
    scope: draft.scope,
    scope_id: draft.scope_id.trim(),
    period: draft.period,
    amount,
    currency: draft.currency.trim().toUpperCase(),
    timezone: draft.timezone.trim(),
    enabled: draft.enabled,
  }
  if (!original) {
    // Left empty: the server's defaults (the reference currency, the `limits_timezone` setting).
    if (!values.currency) delete values.currency
    if (!values.timezone) delete values.timezone
    return { body: values, errors }
  }
  const body: LimitBody = {}
  for (const name of FIELD_NAMES) {
    const same = name === 'amount' ? !errors.amount && compareDecimals(amount, original.amount) === 0 : values[name] === original[name]
    if (!same) Object.assign(body, { [name]: values[name] })
  }
  return { body, errors }
}

/**
 * The server's answer to a refused save: each 422 field error beside its field
 * (`body.amount` → amount), the rest as one message above the form.
 */
export function placeErrors(error: unknown): { fields: LimitErrors; message: string | null } {
  const fields: LimitErrors = {}
  const elsewhere: string[] = []
  const reported = error instanceof ApiError ? error.fields : []
  for (const { location, message } of reported) {
    const name = location.split('.').find((part): part is LimitField => (FIELD_NAMES as string[]).includes(part))
    if (name && !fields[name]) fields[name] = message
    else if (!name) elsewhere.push(`${location}: ${message}`)
  }
  const placed = Object.keys(fields).length > 0
  const message = elsewhere.length ? elsewhere.join(' ') : placed ? null : messageOf(error)
  return { fields, message }
}

export type HeadroomLevel = 'ok' | 'near' | 'over'

/** How full a limit is: `consumed / amount` (may pass 1) and whether it is near or over. */
export function headroomOf(limit: Pick<SpendingLimit, 'consumed' | 'amount'>): { fraction: number; level: HeadroomLevel } {
  const amount = toNumber(limit.amount)
  const fraction = amount > 0 ? toNumber(limit.consumed) / amount : 0
  const over = isDecimal(limit.consumed) && isDecimal(limit.amount) && compareDecimals(limit.consumed, limit.amount) >= 0
  return { fraction, level: over ? 'over' : fraction >= 0.8 ? 'near' : 'ok' }
}

/**
 * "May 1, 2026, 12:00 AM – Jun 1, 2026, 12:00 AM": the window as the clock of `timeZone` reads it
 * (UTC's clock for a zone this browser does not know).
 */
export function formatWindow(start: string, end: string, timeZone: string): string {
  for (const zone of [timeZone, 'UTC']) {
    try {
      return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).formatRange(new Date(start), new Date(end))
    } catch {
      // An unknown zone, or a bound that is not a date.
    }
  }
  return `${start} – ${end}`
}
