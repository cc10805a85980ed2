// Create or edit one registry entry in a dialog: the kind's fields, the server's field errors
// beside them, a 409 or 404 said plainly; a model's prices and an agent's versions below.
import { useState, type FormEvent } from 'react'
import { registry, type Entry, type EntryKind } from '@/lib/api/registry'
import type { ConfiguredAgent, Provider, RegistryModel } from '@/lib/api/types'
import { invalidate } from '@/lib/resource'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { cn } from '@/lib/cn'
import { AgentVersions } from './AgentVersions'
import { useChoices } from './choices'
import { Field } from './Field'
import { FIELDS, placeErrors, SINGULAR, toBody, toForm, type FieldErrors, type FieldSpec } from './form'
import { ModelPrices } from './ModelPrices'

const WIDE = new Set(['textarea', 'json', 'tools', 'secret'])

export function EntryDialog({
  kind,
  entry,
  open,
  onOpenChange,
  onSaved,
}: {
  kind: EntryKind
  /** The entry to edit; null for a new one. */
  entry: Entry | null
  open: boolean
  onOpenChange: (open: boolean) => void
  onSaved: (saved: Entry, created: boolean) => void
}) {
  const title = entry ? `Edit ${SINGULAR[kind]} ${entry.key}` : `New ${SINGULAR[kind]}`
  return (
    <Dialog open={open} onOpenChange={onOpenChange} label={title} className="max-h-[90vh] max-w-2xl overflow-y-auto">
      <EntryForm key={entry?.key ?? ''} kind={kind} entry={entry} title={title} onCancel={() => onOpenChange(false)} onSaved={onSaved} />
      {entry && kind === 'models' && <ModelPrices model={entry as RegistryModel} />}
      {entry && kind === 'agents' && <AgentVersions agent={entry as ConfiguredAgent} />}
    </Dialog>
  )
}

function EntryForm({
  kind,
  entry,
  title,
  onCancel,
  onSaved,
}: {
  kind: EntryKind
  entry: Entry | null
  title: string
  onCancel: () => void
  onSaved: (saved: Entry, created: boolean) => void
}) {
  const fields: FieldSpec[] = FIELDS[kind]
  const [values, setValues] = useState(() => toForm(fields, entry as Record<string, unknown> | null))
  const [errors, setErrors] = useState<FieldErrors>({})
  const [message, setMessage] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const choices = useChoices(kind, true)
  const creating = entry === null
  const provider = kind === 'providers' && entry ? (entry as Provider) : null

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const draft = toBody(fields, values, creating, entry as Record<string, unknown> | null)
    setErrors(draft.errors)
    setMessage(null)
    if (Object.keys(draft.errors).length) return
    setSaving(true)
    try {
      const saved = creating ? await registry.create(kind, draft.body) : await registry.update(kind, entry.key, draft.body)
      invalidate('registry:')
      if (kind === 'agents') {
        invalidate('agents')
        invalidate(`agent:${(saved as ConfiguredAgent).slug}`)
      }
      setSaving(false)
      onSaved(saved, creating)
    } catch (cause) {
      const placed = placeErrors(
        cause,
        fields.map((field) => field.name),
        fields.flatMap((field) => (field.group ? [field.group] : [])),
      )
      setErrors(placed.fields)
      setMessage(placed.message)
      setSaving(false)
    }
  }

  return (
    <form onSubmit={submit} className="grid gap-4" aria-label={title} noValidate>
      <DialogHeader>
        <DialogTitle className="flex items-center gap-2">
          {title}
          {kind === 'agents' && entry && <Badge variant="mono">v{(entry as ConfiguredAgent).version}</Badge>}
        </DialogTitle>
      </DialogHeader>
      <div className="grid gap-4 sm:grid-cols-2">
        {fields.map((field) => (
          <div key={field.name} className={cn((field.wide || WIDE.has(field.type)) && 'sm:col-span-2')}>
            <Field
              field={field}
              value={values[field.name] ?? ''}
              error={errors[field.name]}
              onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
              choices={choices}
              editing={!creating}
              secret={provider ? { set: provider.secret_set, last4: provider.secret_last4 } : undefined}
            />
          </div>
        ))}
      </div>
      {message && (
        <p role="alert" className="whitespace-pre-wrap break-words rounded-md border border-destructive/40 bg-destructive/10 px-3 py-2 text-xs text-destructive">
          {message}
        </p>
      )}
      <DialogFooter>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" disabled={saving}>
          {saving ? 'Saving…' : creating ? (kind === 'agents' ? 'Create and open' : 'Create') : 'Save'}
        </Button>
      </DialogFooter>
    </form>
  )
}
