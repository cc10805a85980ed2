// A rule as the form edits it: the form's values ↔ the API's body (a new rule: what was given; an
// edit: only what changed), and the server's 422 field errors → the field each belongs to.
import { ApiError } from '@/lib/api/client'
import { messageOf } from '@/components/common/States'
import type { Rule, RuleInput, RulePatch } from './api'

export interface RuleDraft {
  tenant: string
  subject: string
  applies_to: string
  text: string
  priority: string
}

export type RuleField = keyof RuleDraft
export type FieldErrors<F extends string> = Partial<Record<F, string>>
export const RULE_FIELDS: RuleField[] = ['tenant', 'subject', 'applies_to', 'text', 'priority']

export function draftOf(rule: Rule | null, tenant = ''): RuleDraft {
  if (!rule) return { tenant, subject: '', applies_to: '', text: '', priority: '0' }
  return { tenant: rule.tenant, subject: rule.subject ?? '', applies_to: rule.applies_to ?? '', text: rule.text, priority: String(rule.priority) }
}

const WHOLE = /^[+-]?\d+$/

/** The body to send for `draft` (`original` null: a new rule), or the error plain without asking. */
export function bodyOf(draft: RuleDraft, original: Rule | null): { body: RuleInput | RulePatch; errors: FieldErrors<RuleField> } {
  const priority = draft.priority.trim() || '0'
  if (!WHOLE.test(priority)) return { body: {}, errors: { priority: 'A whole number, such as 0 or -5.' } }
  const values = {
    tenant: draft.tenant.trim(),
    subject: draft.subject.trim() || null,
    applies_to: draft.applies_to.trim() || null,
    text: draft.text.trim(),
    priority: Number(priority),
  }
  if (!original) {
    const { subject, applies_to, ...rest } = values
    return { body: { ...rest, ...(subject && { subject }), ...(applies_to && { applies_to }) }, errors: {} }
  }
  const body: RulePatch = {}
  for (const name of RULE_FIELDS) if (values[name] !== original[name]) Object.assign(body, { [name]: values[name] })
  return { body, errors: {} }
}

/**
 * The server's answer to a refused request: each 422 field error beside its field (`body.tenant`,
 * `query.actor` → tenant, actor), the rest as one message.
 */
export function placeErrors<F extends string>(error: unknown, names: readonly F[]): { fields: FieldErrors<F>; message: string | null } {
  const fields: FieldErrors<F> = {}
  const elsewhere: string[] = []
  for (const { location, message } of error instanceof ApiError ? error.fields : []) {
    const name = location.split('.').find((part): part is F => (names as readonly string[]).includes(part))
    if (name && !fields[name]) fields[name] = message
    else if (!name) elsewhere.push(`${location}: ${message}`)
  }
  const placed = Object.keys(fields).length > 0
  return { fields, message: elsewhere.length ? elsewhere.join(' ') : placed ? null : messageOf(error) }
}
