// Create or edit a spending limit in a dialog; the server's 422 field errors show beside their
// fields, anything else (a 409: that scope already has a limit for the period) above the buttons.
import { useId, useState, type FormEvent } from 'react'
import { LIMIT_PERIODS, LIMIT_SCOPES, spendApi, type SpendingLimit } from '@/lib/api/spend'
import { cn } from '@/lib/cn'
import { invalidate } from '@/lib/resource'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { AppliesTo } from './AppliesTo'
import { bodyOf, draftOf, PERIOD_LABEL, placeErrors, SCOPE_HINT, type LimitErrors, type LimitField } from './limitForm'

const box = 'h-9 w-full rounded-md border border-input bg-transparent px-3 text-sm focus-visible:outline-2 focus-visible:outline-ring'

type Spec = [name: Exclude<LimitField, 'enabled'>, label: string, options?: readonly string[]]
const FIELDS: Spec[] = [
  ['scope', 'Scope', LIMIT_SCOPES],
  ['scope_id', 'Applies to'],
  ['period', 'Period', LIMIT_PERIODS],
  ['amount', 'Amount'],
  ['currency', 'Currency'],
  ['timezone', 'Time zone'],
]

function LimitForm({ limit, title, onDone }: { limit: SpendingLimit | null; title: string; onDone: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(limit))
  const [errors, setErrors] = useState<LimitErrors>({})
  const [message, setMessage] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const id = useId()

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const { body, errors: found } = bodyOf(draft, limit)
    setErrors(found)
    setMessage(null)
    if (Object.keys(found).length) return
    setSaving(true)
    try {
      if (!limit) await spendApi.createLimit(body)
      else if (Object.keys(body).length) await spendApi.updateLimit(limit.id, body)
      invalidate('spend:')
      onDone()
    } catch (error) {
      const placed = placeErrors(error)
      setErrors(placed.fields)
      setMessage(placed.message)
      setSaving(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label={title} className="grid gap-4" noValidate>
      <DialogTitle>{title}</DialogTitle>
      <div className="grid gap-3 sm:grid-cols-2">
        {FIELDS.map(([name, label, options]) => {
          const error = errors[name]
          const note = error ?? (name === 'scope_id' ? SCOPE_HINT[draft.scope] : undefined)
          const props = {
            id: `${id}${name}`,
            value: draft[name],
            onChange: (event: { target: { value: string } }) => {
              // Another scope names other things: what was picked for the last one no longer applies.
              const cleared = name === 'scope' && event.target.value !== draft.scope ? { scope_id: '' } : {}
              setDraft({ ...draft, [name]: event.target.value, ...cleared })
              setErrors({ ...errors, [name]: undefined })
            },
            'aria-invalid': error ? true : undefined,
            'aria-describedby': note ? `${id}${name}-note` : undefined,
            className: cn(box, options ? 'py-0' : name === 'scope_id' ? undefined : 'font-mono'),
          }
          return (
            <div key={name} className="grid content-start gap-1.5">
              <label htmlFor={props.id} className="text-[13px] font-medium">
                {label}
              </label>
              {name === 'scope_id' ? (
                <AppliesTo scope={draft.scope} field={props} />
              ) : options ? (
                <select {...props}>
                  {options.map((option) => (
                    <option key={option} value={option}>
                      {PERIOD_LABEL[option as keyof typeof PERIOD_LABEL] ?? option}
                    </option>
                  ))}
                </select>
              ) : (
                // An empty currency or time zone: the reference currency, the limits_timezone setting.
                <input {...props} autoComplete="off" placeholder={name === 'currency' || name === 'timezone' ? 'default' : undefined} />
              )}
              {note && (
                <p id={props['aria-describedby']} className={cn('text-xs', error ? 'text-destructive' : 'text-muted-foreground')}>
                  {note}
                </p>
              )}
            </div>
          )
        })}
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" className="size-4" checked={draft.enabled} onChange={(event) => setDraft({ ...draft, enabled: event.target.checked })} />
        Enabled
      </label>
      {message && (
        <p role="alert" className="text-xs text-destructive">
          {message}
        </p>
      )}
      <DialogFooter>
        <Button variant="ghost" onClick={onDone} disabled={saving}>
          Cancel
        </Button>
        <Button type="submit" disabled={saving}>
          {limit ? 'Save' : 'Create'}
        </Button>
      </DialogFooter>
    </form>
  )
}

/** The dialog for `limit` (null: a new one); `open` false hides it. */
export function LimitDialog({ open, limit, onClose }: { open: boolean; limit: SpendingLimit | null; onClose: () => void }) {
  const title = limit ? `Edit the limit on ${limit.scope} ${limit.scope_id}` : 'New limit'
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()} label={title} className="max-w-xl">
      <LimitForm key={limit?.id} limit={limit} title={title} onDone={onClose} />
    </Dialog>
  )
}
