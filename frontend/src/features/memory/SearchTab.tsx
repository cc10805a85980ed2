// Search a tenant's memories as an agent would recall them: a subject and an actor narrow it to
// what a conversation of that scope may see (shared memories and that person's own).
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { box, Field } from '@/features/rules/Field'
import { placeErrors } from '@/features/rules/ruleForm'
import { cn } from '@/lib/cn'
import { useMemorySearch } from './queries'
import { SearchResults } from './SearchResults'

const FIELDS = ['tenant', 'subject', 'actor', 'q'] as const
type SearchField = (typeof FIELDS)[number]
const LABELS: Record<SearchField, [label: string, hint: string]> = {
  tenant: ['Tenant', 'e.g. org:acme'],
  subject: ['Subject', 'Optional, e.g. case:7'],
  actor: ['Actor', 'Optional: who asks, e.g. user:42; their own memories rank with the shared ones'],
  q: ['Query', 'What to recall, in words'],
}
const REQUIRED: Partial<Record<SearchField, string>> = { tenant: 'Required: whose memories, as type:id.', q: 'Type what to look for.' }

function asked(values: Record<SearchField, string>): string {
  const query = new URLSearchParams()
  for (const field of FIELDS) if (values[field].trim()) query.set(field, values[field].trim())
  return query.toString()
}

export function SearchTab({ tenant }: { tenant: string }) {
  const [values, setValues] = useState<Record<SearchField, string>>({ tenant, subject: '', actor: '', q: '' })
  const [missing, setMissing] = useState<Partial<Record<SearchField, string>>>({})
  const [query, setQuery] = useState<string | null>(null)
  const search = useMemorySearch(query)
  const placed = search.error === undefined ? null : placeErrors(search.error, FIELDS)
  const answer = search.error === undefined ? search.data : undefined

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const absent = Object.fromEntries(Object.entries(REQUIRED).filter(([field]) => !values[field as SearchField].trim()))
    setMissing(absent)
    if (Object.keys(absent).length) return
    const next = asked(values)
    if (next === query) search.reload()
    setQuery(next)
  }

  return (
    <section aria-label="Search memories" className="grid min-w-0 gap-4">
      <form role="search" aria-label="Search memories" onSubmit={submit} className="grid gap-3 sm:grid-cols-3" noValidate>
        {(['tenant', 'subject', 'actor'] as const).map((field) => (
          <Field key={field} label={LABELS[field][0]} hint={LABELS[field][1]} error={missing[field] ?? placed?.fields[field]}>
            {(aria) => (
              <input {...aria} value={values[field]} onChange={(event) => setValues({ ...values, [field]: event.target.value })} className={cn(box, 'font-mono')} autoComplete="off" />
            )}
          </Field>
        ))}
        <Field label={LABELS.q[0]} hint={LABELS.q[1]} error={missing.q ?? placed?.fields.q} className="sm:col-span-3">
          {(aria) => (
            <div className="flex gap-2">
              <input {...aria} type="search" value={values.q} onChange={(event) => setValues({ ...values, q: event.target.value })} className={box} autoComplete="off" />
              <Button type="submit" size="sm" className="h-9">
                Search
              </Button>
            </div>
          )}
        </Field>
      </form>
      {placed?.message && (
        <p role="alert" className="text-xs text-destructive">
          {placed.message}
        </p>
      )}
      {query !== null && search.loading && answer === undefined && search.error === undefined && <Skeleton className="h-24" />}
      {answer && <SearchResults answer={answer} />}
    </section>
  )
}
