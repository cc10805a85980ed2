// A tenant's vector memories, newest first, a page at a time: filtered by person (any, none, or
// one) and scope, each forgotten on its own behind a confirmation. The server's refusal of a filter
// shows beside the field it names; what was typed stays.
import { Brain } from '@/components/icons'
import { useEffect, useState, type FormEvent } from 'react'
import { EmptyState, messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { box, Field } from '@/features/rules/Field'
import { placeErrors, type FieldErrors } from '@/features/rules/ruleForm'
import { cn } from '@/lib/cn'
import { invalidate } from '@/lib/resource'
import { vectorMemoriesApi, type VectorMemory, type VectorScope } from './api'
import { AxisFilterField } from './AxisFilterField'
import type { AxisDraft } from './filters'
import { SCOPE_LABELS } from './labels'
import { useVectorMemoryPage } from './queries'
import { VectorMemoryRow } from './VectorMemoryRow'

const FIELDS = ['tenant', 'person', 'scope'] as const
type VectorField = (typeof FIELDS)[number]

interface Draft {
  tenant: string
  person: AxisDraft
  scope: VectorScope | ''
}

/** The API's query for `draft`: person left out is anyone's, empty no person's. */
function queryOf(draft: Draft): string {
  const query = new URLSearchParams({ tenant: draft.tenant.trim() })
  if (draft.person.mode === 'none') query.set('person', '')
  if (draft.person.mode === 'exact' && draft.person.label.trim()) query.set('person', draft.person.label.trim())
  if (draft.scope) query.set('scope', draft.scope)
  return query.toString()
}

interface PageProps {
  query: string
  cursor: string | null
  following: string | undefined
  onMore: (cursor: string) => void
  onChanged: () => void
  onForget: (memory: VectorMemory) => void
}

function Page({ query, cursor, following, onMore, onChanged, onForget }: PageProps) {
  const page = useVectorMemoryPage(query, cursor)
  const next = page.data === undefined ? undefined : (page.data.next_cursor ?? null)
  const last = following === undefined
  useEffect(() => {
    if (next !== undefined && !last && next !== following) onChanged()
  }, [next, last, following, onChanged])

  if (page.data === undefined && page.error !== undefined && cursor === null) return null
  if (page.data === undefined && page.error !== undefined)
    return (
      <p role="alert" className="flex items-center gap-2 text-xs text-destructive">
        {messageOf(page.error)}
        <Button variant="outline" size="xs" onClick={page.reload}>
          Try again
        </Button>
      </p>
    )
  if (page.data === undefined) return <Skeleton className={cursor === null ? 'h-40' : 'h-16'} />
  if (cursor === null && page.data.vector_memories.length === 0)
    return (
      <EmptyState icon={<Brain />} title="No vector memories here">
        <p>Nothing matches these filters. Your app writes vector memories for a person or a conversation (POST /api/vector-memories).</p>
      </EmptyState>
    )
  return (
    <>
      <ul className="space-y-2">
        {page.data.vector_memories.map((memory) => (
          <VectorMemoryRow key={memory.id} memory={memory} onForget={onForget} />
        ))}
      </ul>
      {last && next && (
        <Button variant="outline" size="sm" onClick={() => onMore(next)} className="justify-self-start">
          Load more
        </Button>
      )}
    </>
  )
}

/** Keyed by `query` where used, so a new filter starts again from the first page. */
function VectorMemoryPages({ query, onForget }: { query: string; onForget: (memory: VectorMemory) => void }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null])
  return (
    <div className="grid gap-2" data-testid="vector-memory-list">
      {cursors.map((cursor, index) => (
        <Page
          key={cursor ?? ''}
          query={query}
          cursor={cursor}
          following={cursors[index + 1] ?? undefined}
          onMore={(next) => setCursors([...cursors.slice(0, index + 1), next])}
          onChanged={() => setCursors((shown) => shown.slice(0, index + 1))}
          onForget={onForget}
        />
      ))}
    </div>
  )
}

function Filters({ errors, onApply }: { errors: FieldErrors<VectorField>; onApply: (draft: Draft) => void }) {
  const [draft, setDraft] = useState<Draft>({ tenant: '', person: { mode: 'any', label: '' }, scope: '' })
  const [missing, setMissing] = useState(false)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setMissing(!draft.tenant.trim())
    if (draft.tenant.trim()) onApply(draft)
  }
  return (
    <form role="search" aria-label="Browse vector memories" onSubmit={submit} className="grid gap-3 sm:grid-cols-2 xl:grid-cols-[1fr_1.3fr_auto_auto] xl:items-start" noValidate>
      <Field label="Tenant" error={missing ? 'Required: whose vector memories, as type:id, e.g. org:acme.' : errors.tenant}>
        {(aria) => (
          <input {...aria} value={draft.tenant} onChange={(event) => setDraft({ ...draft, tenant: event.target.value })} placeholder="org:acme" className={cn(box, 'font-mono')} autoComplete="off" />
        )}
      </Field>
      <AxisFilterField
        label="Person"
        choices={{ any: 'Anyone', none: 'No person', exact: 'This person' }}
        placeholder="user:42"
        value={draft.person}
        error={errors.person}
        onChange={(person) => setDraft({ ...draft, person })}
      />
      <Field label="Scope" error={errors.scope}>
        {(aria) => (
          <select {...aria} value={draft.scope} onChange={(event) => setDraft({ ...draft, scope: event.target.value as Draft['scope'] })} className={box}>
            <option value="">Any scope</option>
            {(Object.keys(SCOPE_LABELS) as VectorScope[]).map((scope) => (
              <option key={scope} value={scope}>
                {SCOPE_LABELS[scope]}
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

export function VectorMemoriesTab() {
  const [query, setQuery] = useState<string | null>(null)
  const [forgetting, setForgetting] = useState<VectorMemory | null>(null)
  const first = useVectorMemoryPage(query, null)
  const placed = first.error === undefined ? null : placeErrors(first.error, FIELDS)

  const apply = (draft: Draft) => {
    const next = queryOf(draft)
    if (next === query) invalidate('memories:vector')
    else setQuery(next)
  }

  return (
    <section aria-label="Vector memories" className="grid min-w-0 gap-4">
      <Filters errors={placed?.fields ?? {}} onApply={apply} />
      {placed?.message && (
        <p role="alert" className="text-xs text-destructive">
          {placed.message}
        </p>
      )}
      {query === null ? (
        <p className="text-sm text-muted-foreground" data-testid="vector-memory-hint">
          Name a tenant to see its vector memories, newest first.
        </p>
      ) : (
        <VectorMemoryPages key={query} query={query} onForget={setForgetting} />
      )}
      <ConfirmDialog
        open={forgetting !== null}
        onOpenChange={(open) => !open && setForgetting(null)}
        title="Forget this vector memory?"
        description={forgetting ? `"${forgetting.content}" is deleted from ${forgetting.tenant}: no recall finds it again.` : ''}
        confirmLabel="Forget"
        onConfirm={async () => {
          await vectorMemoriesApi.remove(forgetting!.id, forgetting!.tenant)
          invalidate('memories:')
        }}
      />
    </section>
  )
}
