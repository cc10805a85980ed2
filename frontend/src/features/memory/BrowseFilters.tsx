// The browse filter: a tenant (required), then optionally a subject, a person and a source. Applied
// on submit; the page keeps it in its URL.
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { box, Field } from '@/features/rules/Field'
import type { FieldErrors } from '@/features/rules/ruleForm'
import { cn } from '@/lib/cn'
import { AxisFilterField } from './AxisFilterField'
import { SOURCES, type BrowseDraft } from './filters'
import { SOURCE_LABELS } from './labels'

export const BROWSE_FIELDS = ['tenant', 'subject', 'applies_to', 'source'] as const
export type BrowseField = (typeof BROWSE_FIELDS)[number]

export function BrowseFilters({ initial, errors, onApply }: { initial: BrowseDraft; errors: FieldErrors<BrowseField>; onApply: (draft: BrowseDraft) => void }) {
  const [draft, setDraft] = useState(initial)
  const [missing, setMissing] = useState(false)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setMissing(!draft.tenant.trim())
    if (draft.tenant.trim()) onApply(draft)
  }
  return (
    <form role="search" aria-label="Browse memories" onSubmit={submit} className="grid gap-3 sm:grid-cols-2 xl:grid-cols-[1fr_1.3fr_1.3fr_auto_auto] xl:items-start" noValidate>
      <Field label="Tenant" error={missing ? 'Required: whose memories, as type:id, e.g. org:acme.' : errors.tenant}>
        {(aria) => (
          <input {...aria} value={draft.tenant} onChange={(event) => setDraft({ ...draft, tenant: event.target.value })} placeholder="org:acme" className={cn(box, 'font-mono')} autoComplete="off" />
        )}
      </Field>
      <AxisFilterField
        label="Subject"
        choices={{ any: 'Any subject', none: 'Whole tenant only', exact: 'This subject' }}
        placeholder="case:7"
        value={draft.subject}
        error={errors.subject}
        onChange={(subject) => setDraft({ ...draft, subject })}
      />
      <AxisFilterField
        label="Applies to"
        choices={{ any: 'Anyone', none: 'Everyone only', exact: 'This person only' }}
        placeholder="user:42"
        value={draft.applies_to}
        error={errors.applies_to}
        onChange={(applies_to) => setDraft({ ...draft, applies_to })}
      />
      <Field label="Source" error={errors.source}>
        {(aria) => (
          <select {...aria} value={draft.source} onChange={(event) => setDraft({ ...draft, source: event.target.value as BrowseDraft['source'] })} className={box}>
            <option value="">Any source</option>
            {SOURCES.map((source) => (
              <option key={source} value={source}>
                {SOURCE_LABELS[source]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Button type="submit" size="sm" className="self-end justify-self-start xl:mb-0.5">
        Show
      </Button>
    </form>
  )
}
