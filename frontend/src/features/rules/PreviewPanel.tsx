// What a conversation of one tenant, subject and actor is told: the exact block at the top of its
// prompt, as the server renders it. It follows the list: a rule changed, the block is asked again.
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { cn } from '@/lib/cn'
import { box, Field } from './Field'
import { usePreview } from './queries'
import { placeErrors } from './ruleForm'

const AXES = ['tenant', 'subject', 'actor'] as const
type Axis = (typeof AXES)[number]
const LABELS: Record<Axis, [label: string, hint: string]> = {
  tenant: ['Tenant', 'e.g. org:acme'],
  subject: ['Subject', 'Optional, e.g. case:7'],
  actor: ['Actor', 'Optional: who talks, e.g. user:maria'],
}

function asked(values: Record<Axis, string>): string {
  const query = new URLSearchParams({ tenant: values.tenant.trim() })
  for (const axis of ['subject', 'actor'] as const) if (values[axis].trim()) query.set(axis, values[axis].trim())
  return query.toString()
}

export function PreviewPanel({ tenant }: { tenant: string }) {
  const [values, setValues] = useState<Record<Axis, string>>({ tenant, subject: '', actor: '' })
  const [query, setQuery] = useState<string | null>(null)
  const preview = usePreview(query)
  const placed = preview.error === undefined ? null : placeErrors(preview.error, AXES)
  const data = preview.error === undefined ? preview.data : undefined

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const next = asked(values)
    if (next === query) preview.reload()
    setQuery(next)
  }

  return (
    <section aria-labelledby="rules-preview-title" className="min-w-0 space-y-3 rounded-lg border p-4">
      <div className="space-y-1">
        <h2 id="rules-preview-title" className="text-sm font-semibold">
          Preview
        </h2>
        <p className="text-xs text-muted-foreground">The block a conversation of this scope gets at the top of its prompt.</p>
      </div>
      <form onSubmit={submit} aria-label="Rules preview" className="grid gap-3" noValidate>
        {AXES.map((axis) => (
          <Field key={axis} label={LABELS[axis][0]} hint={LABELS[axis][1]} error={placed?.fields[axis]}>
            {(aria) => (
              <input
                {...aria}
                value={values[axis]}
                onChange={(event) => setValues({ ...values, [axis]: event.target.value })}
                className={cn(box, 'font-mono')}
                autoComplete="off"
              />
            )}
          </Field>
        ))}
        <Button type="submit" size="sm" className="justify-self-start">
          Preview
        </Button>
      </form>
      {placed?.message && (
        <p role="alert" className="text-xs text-destructive">
          {placed.message}
        </p>
      )}
      {query !== null && preview.loading && data === undefined && preview.error === undefined && <Skeleton className="h-24" />}
      {data &&
        (data.block ? (
          <div className="space-y-1.5">
            <p className="text-xs text-muted-foreground" data-testid="rules-counts">
              {data.shared.length} shared, {data.personal.length} personal
            </p>
            <pre className="max-h-[28rem] overflow-auto whitespace-pre-wrap break-words rounded-md bg-muted/60 p-3 font-mono text-xs" data-testid="rules-block">
              {data.block}
            </pre>
          </div>
        ) : (
          <p className="text-sm text-muted-foreground" data-testid="rules-block-none">
            No rule applies.
          </p>
        ))}
    </section>
  )
}
