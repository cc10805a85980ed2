// Add or edit a rule in a dialog; the server's 422 field errors show beside their fields, anything
// else above the buttons. A rule keeps its tenant: an edit changes what it says, covers and weighs.
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { cn } from '@/lib/cn'
import { invalidate } from '@/lib/resource'
import { rulesApi, type Rule, type RuleInput } from './api'
import { box, Field } from './Field'
import { bodyOf, draftOf, placeErrors, RULE_FIELDS, type FieldErrors, type RuleDraft, type RuleField } from './ruleForm'

type Line = Exclude<RuleField, 'text'>
const LINES: [name: Line, label: string, hint: string][] = [
  ['tenant', 'Tenant', 'Whose rule it is, as type:id, e.g. org:acme'],
  ['subject', 'Subject', 'Optional: what it is about, e.g. case:7. Empty: the whole tenant'],
  ['applies_to', 'Applies to', 'Optional: one person, e.g. user:maria. Empty: everyone'],
  ['priority', 'Priority', 'Lower comes first in the prompt'],
]

function RuleForm({ rule, tenant, title, onDone }: { rule: Rule | null; tenant: string; title: string; onDone: () => void }) {
  const [draft, setDraft] = useState<RuleDraft>(() => draftOf(rule, tenant))
  const [errors, setErrors] = useState<FieldErrors<RuleField>>({})
  const [message, setMessage] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)

  const field = (name: RuleField) => ({
    value: draft[name],
    onChange: (event: { target: { value: string } }) => {
      setDraft({ ...draft, [name]: event.target.value })
      setErrors({ ...errors, [name]: undefined })
    },
  })

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const { body, errors: found } = bodyOf(draft, rule)
    setErrors(found)
    setMessage(null)
    if (Object.keys(found).length) return
    setSaving(true)
    try {
      if (!rule) await rulesApi.create(body as RuleInput)
      else if (Object.keys(body).length) await rulesApi.update(rule.id, body)
      invalidate('rules:')
      onDone()
    } catch (error) {
      const placed = placeErrors(error, RULE_FIELDS)
      setErrors(placed.fields)
      setMessage(placed.message)
      setSaving(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label={title} className="grid min-w-0 gap-4" noValidate>
      <DialogTitle>{title}</DialogTitle>
      <Field label="Text" error={errors.text} hint="One instruction, such as: Never quote fees over chat.">
        {(aria) => <textarea {...aria} {...field('text')} rows={3} className={cn(box, 'h-auto min-h-20 resize-y py-2')} />}
      </Field>
      <div className="grid gap-3 sm:grid-cols-2">
        {LINES.map(([name, label, hint]) => (
          <Field key={name} label={label} error={errors[name]} hint={hint}>
            {(aria) => (
              <input
                {...aria}
                {...field(name)}
                disabled={name === 'tenant' && rule !== null}
                inputMode={name === 'priority' ? 'numeric' : undefined}
                className={cn(box, name !== 'priority' && 'font-mono', 'disabled:opacity-60')}
                autoComplete="off"
              />
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
          {rule ? 'Save' : 'Add'}
        </Button>
      </DialogFooter>
    </form>
  )
}

/** The dialog for `rule` (null: a new one, its tenant `tenant`); `open` false hides it. */
export function RuleDialog({ open, rule, tenant = '', onClose }: { open: boolean; rule: Rule | null; tenant?: string; onClose: () => void }) {
  const title = rule ? 'Edit rule' : 'New rule'
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()} label={title} className="max-h-[90vh] max-w-xl overflow-y-auto">
      <RuleForm key={rule?.id ?? `new:${tenant}`} rule={rule} tenant={tenant} title={title} onDone={onClose} />
    </Dialog>
  )
}
