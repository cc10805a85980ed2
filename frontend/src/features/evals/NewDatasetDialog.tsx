// A new, empty dataset: its key (the name it is run by) and its name. Cases come from saved turns,
// the command line or an imported pydantic-evals file.
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { box, Field } from '@/features/rules/Field'
import { placeErrors, type FieldErrors } from '@/features/rules/ruleForm'
import { invalidate } from '@/lib/resource'
import { evalsApi, type Dataset } from './api'

const FIELDS = ['key', 'name'] as const
type Name = (typeof FIELDS)[number]

function NewDatasetForm({ onDone }: { onDone: (dataset: Dataset | null) => void }) {
  const [draft, setDraft] = useState({ key: '', name: '' })
  const [errors, setErrors] = useState<FieldErrors<Name>>({})
  const [message, setMessage] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setSaving(true)
    setMessage(null)
    try {
      const created = await evalsApi.create({ key: draft.key.trim(), name: draft.name.trim() || draft.key.trim() })
      invalidate('evals:')
      onDone(created)
    } catch (error) {
      const placed = placeErrors(error, FIELDS)
      setErrors(placed.fields)
      setMessage(placed.message)
      setSaving(false)
    }
  }
  const field = (name: Name) => ({
    value: draft[name],
    onChange: (event: { target: { value: string } }) => {
      setDraft({ ...draft, [name]: event.target.value })
      setErrors({ ...errors, [name]: undefined })
    },
  })
  return (
    <form onSubmit={submit} aria-label="New dataset" className="grid gap-4" noValidate>
      <DialogTitle>New dataset</DialogTitle>
      <Field label="Key" error={errors.key} hint="Lowercase letters, digits, - and _, e.g. support-regressions">
        {(aria) => <input {...aria} {...field('key')} className={`${box} font-mono`} autoComplete="off" />}
      </Field>
      <Field label="Name" error={errors.name} hint="Shown in the list; the key when empty">
        {(aria) => <input {...aria} {...field('name')} className={box} autoComplete="off" />}
      </Field>
      {message && (
        <p role="alert" className="text-xs text-destructive">
          {message}
        </p>
      )}
      <DialogFooter>
        <Button variant="ghost" onClick={() => onDone(null)} disabled={saving}>
          Cancel
        </Button>
        <Button type="submit" disabled={saving}>
          Create
        </Button>
      </DialogFooter>
    </form>
  )
}

export function NewDatasetDialog({ open, onDone }: { open: boolean; onDone: (dataset: Dataset | null) => void }) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onDone(null)} label="New dataset">
      {open && <NewDatasetForm onDone={onDone} />}
    </Dialog>
  )
}
