// Create or edit a standing agent in a dialog: what it runs and asks, its schedule (checked live
// by the server as it is typed) and events, its scope. The server's 422 field errors show beside
// their fields, anything else above the buttons.
import { useId, useState, type FormEvent, type ReactNode } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { cn } from '@/lib/cn'
import { useAgents } from '@/lib/queries'
import { invalidate } from '@/lib/resource'
import { tasksApi, type StandingAgent, type StandingInput } from './api'
import { bodyOf, draftOf, placeErrors, type StandingDraft, type StandingErrors, type StandingField } from './form'
import { SchedulePreview } from './SchedulePreview'

const area = 'w-full min-w-0 rounded-md border border-input bg-transparent px-3 text-sm focus-visible:outline-2 focus-visible:outline-ring'
const box = `h-9 ${area}`
/** The agent select's choice for a key typed by hand. */
const OTHER = '\u0000other'

interface Aria {
  id: string
  'aria-invalid'?: true
  'aria-describedby'?: string
}

function Field({ name, label, error, hint, className, children }: { name: StandingField; label: string; error?: string; hint?: string; className?: string; children: (aria: Aria) => ReactNode }) {
  const id = `${useId()}${name}`
  const note = error ?? hint
  const aria: Aria = { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': note ? `${id}-note` : undefined }
  return (
    <div className={cn('grid min-w-0 content-start gap-1.5', className)}>
      <label htmlFor={id} className="text-[13px] font-medium">
        {label}
      </label>
      {children(aria)}
      {note && (
        <p id={`${id}-note`} className={cn('text-xs', error ? 'text-destructive' : 'text-muted-foreground')} data-testid={error ? 'field-error' : undefined}>
          {note}
        </p>
      )}
    </div>
  )
}

function StandingForm({ standing, title, onDone }: { standing: StandingAgent | null; title: string; onDone: () => void }) {
  const agents = useAgents().data?.agents ?? []
  const [draft, setDraft] = useState<StandingDraft>(() => draftOf(standing))
  // Chosen "another agent" with a listed one in the draft; a key the list lacks always shows as typed.
  const [other, setOther] = useState(false)
  const [errors, setErrors] = useState<StandingErrors>({})
  const [message, setMessage] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const previewId = useId()

  const change = (values: Partial<StandingDraft>) => {
    setDraft({ ...draft, ...values })
    const cleared = { ...errors }
    for (const name of Object.keys(values) as StandingField[]) delete cleared[name]
    setErrors(cleared)
  }
  const text = (name: Exclude<StandingField, 'enabled'>) => ({
    value: draft[name],
    onChange: (event: { target: { value: string } }) => change({ [name]: event.target.value }),
  })

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const { body, errors: found } = bodyOf(draft, standing)
    setErrors(found)
    setMessage(null)
    if (Object.keys(found).length) return
    setSaving(true)
    try {
      if (!standing) await tasksApi.create(body as StandingInput)
      else if (Object.keys(body).length) await tasksApi.update(standing.id, body)
      invalidate('tasks:')
      onDone()
    } catch (error) {
      const placed = placeErrors(error)
      setErrors(placed.fields)
      setMessage(placed.message)
      setSaving(false)
    }
  }

  const known = agents.some((agent) => agent.slug === draft.agent)
  const choice = other || (draft.agent && !known) ? OTHER : draft.agent
  return (
    <form onSubmit={submit} aria-label={title} className="grid min-w-0 gap-4" noValidate>
      <DialogTitle>{title}</DialogTitle>
      <Field name="name" label="Name" error={errors.name}>
        {(aria) => <input {...aria} {...text('name')} className={box} autoComplete="off" placeholder="Morning digest" />}
      </Field>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field name="agent" label="Agent" error={choice === OTHER ? undefined : errors.agent}>
          {(aria) => (
            <select
              {...aria}
              className={cn(box, 'py-0')}
              value={choice}
              onChange={(event) => {
                const value = event.target.value
                setOther(value === OTHER)
                change({ agent: value === OTHER ? (known ? '' : draft.agent) : value })
              }}
            >
              <option value="">Choose an agent…</option>
              {agents.map((agent) => (
                <option key={agent.slug} value={agent.slug}>
                  {agent.name} ({agent.slug})
                </option>
              ))}
              <option value={OTHER}>Another agent (config:&lt;key&gt;)…</option>
            </select>
          )}
        </Field>
        {choice === OTHER && (
          <Field name="agent" label="Agent key" error={errors.agent} hint="A slug, or config:<key> for a configured agent.">
            {(aria) => <input {...aria} {...text('agent')} className={cn(box, 'font-mono')} autoComplete="off" placeholder="config:digest" />}
          </Field>
        )}
      </div>
      <Field name="instruction" label="Instruction" error={errors.instruction} hint="What the agent is asked each time it runs.">
        {(aria) => <textarea {...aria} {...text('instruction')} rows={4} className={cn(area, 'min-h-24 resize-y py-2')} />}
      </Field>
      <fieldset className="grid min-w-0 gap-3">
        <legend className="mb-1 text-[13px] font-medium">Schedule</legend>
        <div className="grid gap-3 sm:grid-cols-2">
          <Field name="cron" label="Cron" error={errors.cron} hint="Five fields or a nickname (@daily); empty for none.">
            {(aria) => <input {...aria} {...text('cron')} aria-controls={previewId} className={cn(box, 'font-mono')} autoComplete="off" placeholder="0 9 * * 1-5" />}
          </Field>
          <Field name="timezone" label="Time zone" error={errors.timezone}>
            {(aria) => <input {...aria} {...text('timezone')} className={cn(box, 'font-mono')} autoComplete="off" placeholder="UTC" />}
          </Field>
        </div>
        <SchedulePreview id={previewId} cron={draft.cron} timezone={draft.timezone} />
      </fieldset>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field name="events" label="Events" error={errors.events} hint="Comma separated, e.g. order.created, order.paid.">
          {(aria) => <input {...aria} {...text('events')} className={cn(box, 'font-mono')} autoComplete="off" />}
        </Field>
        <Field name="debounce_seconds" label="Debounce (seconds)" error={errors.debounce_seconds}>
          {(aria) => <input {...aria} {...text('debounce_seconds')} className={box} inputMode="numeric" autoComplete="off" />}
        </Field>
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field name="tenant" label="Tenant" error={errors.tenant} hint="type:id, e.g. org:acme">
          {(aria) => <input {...aria} {...text('tenant')} className={cn(box, 'font-mono')} autoComplete="off" />}
        </Field>
        <Field name="subject" label="Subject" error={errors.subject} hint="type:id, e.g. account:42">
          {(aria) => <input {...aria} {...text('subject')} className={cn(box, 'font-mono')} autoComplete="off" />}
        </Field>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" className="size-4" checked={draft.enabled} onChange={(event) => change({ enabled: event.target.checked })} />
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
          {standing ? 'Save' : 'Create'}
        </Button>
      </DialogFooter>
    </form>
  )
}

/** The dialog for `standing` (null: a new one); `open` false hides it. */
export function StandingDialog({ open, standing, onClose }: { open: boolean; standing: StandingAgent | null; onClose: () => void }) {
  const title = standing ? `Edit ${standing.name}` : 'New standing agent'
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()} label={title} className="max-h-[90vh] max-w-2xl overflow-y-auto">
      <StandingForm key={standing?.id ?? 'new'} standing={standing} title={title} onDone={onClose} />
    </Dialog>
  )
}
