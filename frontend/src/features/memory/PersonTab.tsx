// One person's view: everything that applies to them (in one tenant or all), their sharing choice,
// and forgetting everything about them at once.
import { useState, type FormEvent } from 'react'
import { Trash2 } from '@/components/icons'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { box, Field } from '@/features/rules/Field'
import { placeErrors } from '@/features/rules/ruleForm'
import { cn } from '@/lib/cn'
import { plural } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { memoriesApi } from './api'
import { MemoryRow } from './MemoryRow'
import { usePersonMemories } from './queries'
import { SharingControl } from './SharingControl'

const FIELDS = ['actor', 'tenant'] as const
type PersonField = (typeof FIELDS)[number]
const LABELS: Record<PersonField, [label: string, hint: string]> = {
  actor: ['Person', 'As type:id, e.g. user:42'],
  tenant: ['Tenant', 'Optional: empty, every tenant'],
}

export function PersonTab() {
  const [values, setValues] = useState<Record<PersonField, string>>({ actor: '', tenant: '' })
  const [shown, setShown] = useState<Record<PersonField, string>>({ actor: '', tenant: '' })
  const [missing, setMissing] = useState(false)
  const [confirming, setConfirming] = useState(false)
  const [forgotten, setForgotten] = useState<string | null>(null)
  const memories = usePersonMemories(shown.actor, shown.tenant)
  const placed = memories.error === undefined ? null : placeErrors(memories.error, FIELDS)
  const list = memories.error === undefined ? memories.data?.memories : undefined
  const where = shown.tenant ? `in ${shown.tenant}` : 'in every tenant'

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const next = { actor: values.actor.trim(), tenant: values.tenant.trim() }
    setMissing(!next.actor)
    setForgotten(null)
    if (next.actor) setShown(next)
  }

  const forgetAll = async () => {
    const query = new URLSearchParams(shown.tenant ? { tenant: shown.tenant } : {})
    const { deleted } = await memoriesApi.forgetPerson(shown.actor, query)
    setForgotten(`Forgot ${plural(deleted, 'memory', 'memories')} about ${shown.actor}.`)
    invalidate('memories:')
  }

  return (
    <section aria-label="A person's memories" className="grid min-w-0 gap-4">
      <form aria-label="Show a person's memories" onSubmit={submit} className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-start" noValidate>
        {FIELDS.map((field) => (
          <Field key={field} label={LABELS[field][0]} hint={LABELS[field][1]} error={(field === 'actor' && missing ? 'Required: who, as type:id.' : undefined) ?? placed?.fields[field]}>
            {(aria) => (
              <input {...aria} value={values[field]} onChange={(event) => setValues({ ...values, [field]: event.target.value })} className={cn(box, 'font-mono')} autoComplete="off" />
            )}
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
        <p role="status" className="text-sm" data-testid="memory-forgotten">
          {forgotten}
        </p>
      )}
      {shown.actor && (
        <>
          <SharingControl key={shown.actor} actor={shown.actor} />
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 className="text-sm font-semibold">
              What applies to <span className="font-mono">{shown.actor}</span> {where}
            </h2>
            <Button variant="outline" size="sm" onClick={() => setConfirming(true)} disabled={!list?.length} className="text-destructive">
              <Trash2 /> Forget everything about this person
            </Button>
          </div>
          {list === undefined && memories.error === undefined && <Skeleton className="h-24" />}
          {list?.length === 0 && <p className="text-sm text-muted-foreground">Nothing applies to {shown.actor} {where}.</p>}
          {list && list.length > 0 && (
            <ul className="space-y-2" data-testid="memory-person-list">
              {list.map((memory) => (
                <MemoryRow key={memory.id} memory={memory} showTenant />
              ))}
            </ul>
          )}
        </>
      )}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="Forget everything about this person?"
        description={`Every memory that applies to ${shown.actor} ${where} is deleted${list ? ` (${plural(list.length, 'memory', 'memories')})` : ''}.`}
        confirmLabel="Forget everything"
        onConfirm={forgetAll}
      />
    </section>
  )
}
