// Add or edit a memory in a dialog; the server's 422 field errors show beside their fields, anything
// else above the buttons. A memory keeps its tenant and its author: an edit changes what it says and
// whom it concerns.
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { box, Field } from '@/features/rules/Field'
import { placeErrors, type FieldErrors } from '@/features/rules/ruleForm'
import { cn } from '@/lib/cn'
import { invalidate } from '@/lib/resource'
import { memoriesApi, type Memory, type MemoryInput } from './api'
import { MEMORY_FIELDS, memoryBodyOf, memoryDraftOf, type MemoryDraft, type MemoryField } from './memoryForm'

type Line = Exclude<MemoryField, 'content'>
const LINES: [name: Line, label: string, hint: string][] = [
  ['tenant', 'Tenant', 'Whose memory it is, as type:id, e.g. org:acme'],
  ['subject', 'Subject', 'Optional: what it is about, e.g. case:7. Empty: the whole tenant'],
  ['applies_to', 'Applies to', 'Optional: one person, e.g. user:42. Empty: everyone'],
  ['created_by', 'Created by', 'Optional: who wrote it, e.g. user:7'],
]

function MemoryForm({ memory, tenant, title, onDone }: { memory: Memory | null; tenant: string; title: string; onDone: () => void }) {
  const [draft, setDraft] = useState<MemoryDraft>(() => memoryDraftOf(memory, tenant))
  const [errors, setErrors] = useState<FieldErrors<MemoryField>>({})
  const [message, setMessage] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const lines = memory ? LINES.filter(([name]) => name !== 'created_by') : LINES

  const field = (name: MemoryField) => ({
    value: draft[name],
    onChange: (event: { target: { value: string } }) => {
      setDraft({ ...draft, [name]: event.target.value })
      setErrors({ ...errors, [name]: undefined })
    },
  })

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const { body, errors: found } = memoryBodyOf(draft, memory)
    setErrors(found)
    setMessage(null)
    if (Object.keys(found).length) return
    setSaving(true)
    try {
      if (!memory) await memoriesApi.create(body as MemoryInput)
      else if (Object.keys(body).length) await memoriesApi.update(memory.id, body)
      invalidate('memories:')
      onDone()
    } catch (error) {
      const placed = placeErrors(error, MEMORY_FIELDS)
      setErrors(placed.fields)
      setMessage(placed.message)
      setSaving(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label={title} className="grid min-w-0 gap-4" noValidate>
      <DialogTitle>{title}</DialogTitle>
      <Field label="Content" error={errors.content} hint="One fact to remember, such as: The client prefers calls after 5 pm.">
        {(aria) => <textarea {...aria} {...field('content')} rows={3} className={cn(box, 'h-auto min-h-20 resize-y py-2')} />}
      </Field>
      <div className="grid gap-3 sm:grid-cols-2">
        {lines.map(([name, label, hint]) => (
          <Field key={name} label={label} error={errors[name]} hint={hint}>
            {(aria) => (
              <input {...aria} {...field(name)} disabled={name === 'tenant' && memory !== null} className={cn(box, 'font-mono disabled:opacity-60')} autoComplete="off" />
            )}
          </Field>
        ))}
      </div>
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
          {memory ? 'Save' : 'Add'}
        </Button>
      </DialogFooter>
    </form>
  )
}

/** The dialog for `memory` (null: a new one, its tenant `tenant`); `open` false hides it. */
export function MemoryDialog({ open, memory, tenant = '', onClose }: { open: boolean; memory: Memory | null; tenant?: string; onClose: () => void }) {
  const title = memory ? 'Edit memory' : 'New memory'
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()} label={title} className="max-h-[90vh] max-w-xl overflow-y-auto">
      <MemoryForm key={memory?.id ?? `new:${tenant}`} memory={memory} tenant={tenant} title={title} onDone={onClose} />
    </Dialog>
  )
}
