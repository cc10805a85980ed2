// The limit form's "Applies to": a list of the agents or presets Synapse knows (by name, never free
// text: a limit on a name nothing runs under would never apply), or, for a tenant or a user, a
// `type:id` with the ones the ledger has seen suggested (a new one may still be typed).
import type { LimitChoice, LimitScope } from '@/lib/api/spend'
import { useLimitChoices } from './queries'

export interface AppliesToProps {
  id: string
  value: string
  onChange: (event: { target: { value: string } }) => void
  'aria-invalid'?: boolean
  'aria-describedby'?: string
  className: string
}

const PICK: Partial<Record<LimitScope, string>> = { agent: 'Choose an agent', preset: 'Choose a preset' }

/** An option's text: its label, with the value too where two share a label. */
export function optionText(choice: LimitChoice, all: readonly LimitChoice[]): string {
  const shared = all.filter((other) => other.label === choice.label).length > 1
  return shared && choice.label !== choice.value ? `${choice.label} (${choice.value})` : choice.label
}

export function AppliesTo({ scope, field }: { scope: LimitScope; field: AppliesToProps }) {
  const choices = useLimitChoices(scope)
  const listed = choices.data?.choices ?? []
  const pick = PICK[scope]
  if (pick) {
    // Editing a limit on a name no longer listed keeps it selectable, so saving other fields works.
    const kept = field.value && !listed.some((choice) => choice.value === field.value)
    const empty = choices.data ? `No ${scope} is known yet` : 'Loading…'
    return (
      <select {...field} className={`${field.className} py-0`}>
        <option value="" disabled>
          {listed.length ? pick : empty}
        </option>
        {kept && <option value={field.value}>{field.value}</option>}
        {listed.map((choice) => (
          <option key={choice.value} value={choice.value} title={choice.value}>
            {optionText(choice, listed)}
          </option>
        ))}
      </select>
    )
  }
  const list = `${field.id}-seen`
  return (
    <>
      <input {...field} list={list} autoComplete="off" className={`${field.className} font-mono`} />
      <datalist id={list} data-testid="applies-to-seen">
        {listed.map((choice) => (
          <option key={choice.value} value={choice.value} />
        ))}
      </datalist>
    </>
  )
}
