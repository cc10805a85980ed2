// Everything stored about one person in one tenant (the privacy view): the memories that apply to
// them or are about them, their vector memories, how many ledger rows name them, and deleting all of
// it but the ledger at once, behind a confirmation.
import { useState, type FormEvent } from 'react'
import { Trash2 } from '@/components/icons'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { box, Field } from '@/features/rules/Field'
import { placeErrors } from '@/features/rules/ruleForm'
import { cn } from '@/lib/cn'
import { formatDateTime, formatRelative, plural } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { personDataApi, type MemorySource, type PersonData, type PersonForgotten, type PersonMemory } from './api'
import { SOURCE_LABELS } from './labels'
import { usePersonData } from './queries'
import { VectorMemoryRow } from './VectorMemoryRow'

const FIELDS = ['person', 'tenant'] as const
type DataField = (typeof FIELDS)[number]
const LABELS: Record<DataField, [label: string, hint: string, missing: string]> = {
  person: ['Person', 'As type:id, e.g. user:42', 'Required: who, as type:id.'],
  tenant: ['Tenant', 'As type:id, e.g. org:acme', 'Required: in which tenant, as type:id.'],
}
const EMPTY: Record<DataField, string> = { person: '', tenant: '' }

const memoriesOf = (count: number) => plural(count, 'memory', 'memories')
const vectorsOf = (count: number) => plural(count, 'vector memory', 'vector memories')
const rowsOf = (count: number) => plural(count, 'ledger row')

function PersonMemoryRow({ memory }: { memory: PersonMemory }) {
  return (
    <li className="grid gap-1.5 rounded-lg border bg-card p-3" data-testid="person-data-memory" data-id={memory.id}>
      <p className="whitespace-pre-wrap break-words text-sm" data-testid="person-data-memory-content">
        {memory.content}
      </p>
      <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground">
        <span>{memory.subject === null ? 'Whole tenant' : <span className="font-mono text-foreground/85">{memory.subject}</span>}</span>
        <span>Applies to {memory.applies_to === null ? 'everyone' : <span className="font-mono text-foreground/85">{memory.applies_to}</span>}</span>
        <span>{SOURCE_LABELS[memory.source as MemorySource] ?? memory.source}</span>
        {memory.conversation_id && (
          <span>
            Conversation <span className="font-mono">{memory.conversation_id}</span>
          </span>
        )}
        <time dateTime={memory.created_at} title={formatDateTime(memory.created_at)}>
          {formatRelative(memory.created_at)}
        </time>
      </p>
    </li>
  )
}

function Stored({ data }: { data: PersonData }) {
  return (
    <>
      <p className="text-sm" data-testid="person-data-counts">
        {memoriesOf(data.memories.length)}, {vectorsOf(data.vector_memories.length)}; the ledger has {plural(data.ledger_rows, 'row')} naming them.
      </p>
      <section aria-label="Memories" className="grid gap-2">
        <h3 className="text-[13px] font-semibold">Memories ({data.memories.length})</h3>
        {data.memories.length === 0 ? (
          <p className="text-sm text-muted-foreground">No memory applies to them or is about them.</p>
        ) : (
          <ul className="space-y-2">
            {data.memories.map((memory) => (
              <PersonMemoryRow key={memory.id} memory={memory} />
            ))}
          </ul>
        )}
      </section>
      <section aria-label="Vector memories" className="grid gap-2">
        <h3 className="text-[13px] font-semibold">Vector memories ({data.vector_memories.length})</h3>
        {data.vector_memories.length === 0 ? (
          <p className="text-sm text-muted-foreground">No vector memory is theirs.</p>
        ) : (
          <ul className="space-y-2">
            {data.vector_memories.map((memory) => (
              <VectorMemoryRow key={memory.id} memory={memory} />
            ))}
          </ul>
        )}
      </section>
      <p className="text-xs text-muted-foreground" data-testid="person-data-ledger">
        {data.ledger}
      </p>
    </>
  )
}

function forgottenText(gone: PersonForgotten): string {
  const { memories, vector_memories } = gone.deleted
  return `Deleted ${memoriesOf(memories)} and ${vectorsOf(vector_memories)} about ${gone.person} in ${gone.tenant}; ${rowsOf(gone.ledger_rows_kept)} kept.`
}

export function PersonDataTab() {
  const [values, setValues] = useState(EMPTY)
  const [shown, setShown] = useState(EMPTY)
  const [missing, setMissing] = useState<DataField[]>([])
  const [confirming, setConfirming] = useState(false)
  const [forgotten, setForgotten] = useState<PersonForgotten | null>(null)
  const stored = usePersonData(shown.person, shown.tenant)
  const placed = stored.error === undefined ? null : placeErrors(stored.error, FIELDS)
  const data = stored.error === undefined ? stored.data : undefined
  const nothing = data !== undefined && data.memories.length + data.vector_memories.length === 0

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const next = { person: values.person.trim(), tenant: values.tenant.trim() }
    const absent = FIELDS.filter((field) => !next[field])
    setMissing(absent)
    setForgotten(null)
    if (absent.length === 0) setShown(next)
  }

  const forgetAll = async () => {
    setForgotten(await personDataApi.forget(shown.person, shown.tenant))
    invalidate('memories:')
  }

  return (
    <section aria-label="Everything stored about a person" className="grid min-w-0 gap-4">
      <form aria-label="Show everything stored about a person" onSubmit={submit} className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start" noValidate>
        {FIELDS.map((field) => (
          <Field key={field} label={LABELS[field][0]} hint={LABELS[field][1]} error={(missing.includes(field) ? LABELS[field][2] : undefined) ?? placed?.fields[field]}>
            {(aria) => <input {...aria} value={values[field]} onChange={(event) => setValues({ ...values, [field]: event.target.value })} className={cn(box, 'font-mono')} autoComplete="off" />}
          </Field>
        ))}
        <Button type="submit" size="sm" className="sm:mt-6">
          Show
        </Button>
      </form>
      {placed?.message && (
        <p role="alert" className="text-xs text-destructive">
          {placed.message}
        </p>
      )}
      {forgotten && (
        <div role="status" className="grid gap-1 text-sm" data-testid="person-data-deleted">
          <p>{forgottenText(forgotten)}</p>
          <p className="text-xs text-muted-foreground">{forgotten.ledger}</p>
        </div>
      )}
      {shown.person && shown.tenant && stored.error === undefined && (
        <>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 className="text-sm font-semibold">
              Stored about <span className="font-mono">{shown.person}</span> in <span className="font-mono">{shown.tenant}</span>
            </h2>
            <Button variant="outline" size="sm" onClick={() => setConfirming(true)} disabled={data === undefined || nothing} className="text-destructive">
              <Trash2 /> Delete everything about this person
            </Button>
          </div>
          {data === undefined ? <Skeleton className="h-24" /> : <Stored data={data} />}
        </>
      )}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Delete everything about this person?"
        description={
          data
            ? `${memoriesOf(data.memories.length)} and ${vectorsOf(data.vector_memories.length)} about ${shown.person} in ${shown.tenant} are deleted; the ledger keeps its ${plural(data.ledger_rows, 'row')} naming them.`
            : ''
        }
        confirmLabel="Delete everything"
        onConfirm={forgetAll}
      />
    </section>
  )
}
