// The standing agent form's values ↔ the API's body (with the checks worth making before asking
// the server), and the server's 422 field errors → the field each belongs to.
import { ApiError } from '@/lib/api/client'
import { messageOf } from '@/components/common/States'
import type { StandingAgent, StandingInput, StandingPatch } from './api'

export interface StandingDraft {
  name: string
  /** A code agent's slug or `config:<key>`. */
  agent: string
  instruction: string
  cron: string
  timezone: string
  /** Comma separated. */
  events: string
  debounce_seconds: string
  /** `type:id`, or empty for none. */
  tenant: string
  subject: string
  enabled: boolean
}

export type StandingField = keyof StandingDraft
export type StandingErrors = Partial<Record<StandingField, string>>
const FIELD_NAMES: StandingField[] = ['name', 'agent', 'instruction', 'cron', 'timezone', 'events', 'debounce_seconds', 'tenant', 'subject', 'enabled']

/** This browser's time zone (UTC when it says none). */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
  } catch {
    return 'UTC'
  }
}

/** The form's values for a standing agent, or for a new one (on `agent`, in `zone`). */
export function draftOf(standing: StandingAgent | null, agent = '', zone = browserZone()): StandingDraft {
  if (!standing)
    return { name: '', agent, instruction: '', cron: '', timezone: zone, events: '', debounce_seconds: '0', tenant: '', subject: '', enabled: true }
  return {
    name: standing.name,
    agent: standing.agent,
    instruction: standing.instruction,
    cron: standing.cron ?? '',
    timezone: standing.timezone,
    events: standing.events.join(', '),
    debounce_seconds: String(standing.debounce_seconds),
    tenant: standing.tenant ?? '',
    subject: standing.subject ?? '',
    enabled: standing.enabled,
  }
}

/** "order.created, order.paid,, " → ["order.created", "order.paid"] (each once). */
export function parseEvents(text: string): string[] {
  return [...new Set(text.split(',').map((name) => name.trim()).filter(Boolean))]
}

const REF = /^[^:]+:.+$/

/** The values as the API takes them (empty text: none). */
function valuesOf(draft: StandingDraft): Required<StandingInput> {
  const ref = (text: string) => text.trim() || null
  return {
    name: draft.name.trim(),
    agent: draft.agent.trim(),
    instruction: draft.instruction,
    cron: draft.cron.trim() || null,
    timezone: draft.timezone.trim() || 'UTC',
    events: parseEvents(draft.events),
    debounce_seconds: Number(draft.debounce_seconds.trim() || '0'),
    tenant: ref(draft.tenant),
    subject: ref(draft.subject),
    enabled: draft.enabled,
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * The JSON body to send (a new standing agent: every field given; an edit: only what changed,
 * null to clear the schedule or a scope), or the errors plain without asking the server.
 */
export function bodyOf(draft: StandingDraft, original: StandingAgent | null): { body: StandingInput | StandingPatch; errors: StandingErrors } {
  const errors: StandingErrors = {}
  const values = valuesOf(draft)
  if (!values.name) errors.name = 'Required.'
  if (!values.agent) errors.agent = 'Required.'
  if (!values.instruction.trim()) errors.instruction = 'Required.'
  const debounce = draft.debounce_seconds.trim()
  if (debounce && !/^\d+$/.test(debounce)) errors.debounce_seconds = 'A whole number of seconds, 0 or more.'
  for (const name of ['tenant', 'subject'] as const) {
    const value = values[name]
    if (value && !REF.test(value)) errors[name] = 'type:id, e.g. org:acme.'
  }
  if (!original) {
    const body: StandingInput = { ...values }
    if (body.cron === null) delete body.cron
    if (body.tenant === null) delete body.tenant
    if (body.subject === null) delete body.subject
    return { body, errors }
  }
  const before = valuesOf(draftOf(original))
  const body: StandingPatch = {}
  for (const name of FIELD_NAMES) {
    if (!same(values[name], before[name])) Object.assign(body, { [name]: values[name] })
  }
  return { body, errors }
}

/**
 * The server's answer to a refused save: each 422 field error beside its field
 * (`body.cron` → cron, `body.events.1` → events), the rest as one message above the buttons.
 */
export function placeErrors(error: unknown): { fields: StandingErrors; message: string | null } {
  const fields: StandingErrors = {}
  const elsewhere: string[] = []
  const reported = error instanceof ApiError ? error.fields : []
  for (const { location, message } of reported) {
    const name = location.split('.').find((part): part is StandingField => (FIELD_NAMES as string[]).includes(part))
    if (name && !fields[name]) fields[name] = message
    else if (!name) elsewhere.push(`${location}: ${message}`)
  }
  const placed = Object.keys(fields).length > 0
  const message = elsewhere.length ? elsewhere.join(' ') : placed ? null : messageOf(error)
  return { fields, message }
}
