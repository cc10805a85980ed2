// The scope filter: tenant, actor and subject as `type:id` (or a type alone, for every id of it).
import { ChevronDown } from '@/components/icons'
import { useState, type FormEvent } from 'react'
import { SCOPE_AXES, type ScopeAxis } from '@/lib/api/types'
import { cn } from '@/lib/cn'
import { Badge } from '@/components/ui/badge'
import { Button, buttonVariants } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Popover, PopoverContent, PopoverTrigger, usePopover } from '@/components/ui/popover'
import { AXIS_LABEL } from '@/features/conversations/scope'
import { validScopeFilter } from './historyParams'

type ScopeValues = Record<ScopeAxis, string>

const PLACEHOLDER: Record<ScopeAxis, string> = { tenant: 'firm:7 or firm', actor: 'user:42 or user', subject: 'case:9 or case' }

function ScopeForm({ values, onChange }: { values: ScopeValues; onChange: (values: ScopeValues) => void }) {
  const { setOpen } = usePopover()
  const [draft, setDraft] = useState(values)
  const invalid = SCOPE_AXES.filter((axis) => draft[axis].trim() !== '' && !validScopeFilter(draft[axis].trim()))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (invalid.length) return
    onChange({ tenant: draft.tenant.trim(), actor: draft.actor.trim(), subject: draft.subject.trim() })
    setOpen(false)
  }
  return (
    <form onSubmit={submit} className="space-y-3" aria-label="Scope filter">
      {SCOPE_AXES.map((axis) => (
        <label key={axis} className="block space-y-1 text-xs text-muted-foreground">
          {AXIS_LABEL[axis]}
          <Input
            value={draft[axis]}
            onChange={(event) => setDraft({ ...draft, [axis]: event.target.value })}
            placeholder={PLACEHOLDER[axis]}
            aria-invalid={invalid.includes(axis) || undefined}
            aria-label={AXIS_LABEL[axis]}
            className={cn('h-8 font-mono text-xs', invalid.includes(axis) && 'border-destructive')}
          />
        </label>
      ))}
      {invalid.length > 0 && (
        <p role="alert" className="text-xs text-destructive">
          Write <span className="font-mono">type:id</span>, or a type alone for every id of that type.
        </p>
      )}
      <div className="flex justify-between gap-2">
        <Button
          size="xs"
          variant="ghost"
          onClick={() => {
            onChange({ tenant: '', actor: '', subject: '' })
            setOpen(false)
          }}
        >
          Clear scope
        </Button>
        <Button size="xs" type="submit" disabled={invalid.length > 0}>
          Apply
        </Button>
      </div>
    </form>
  )
}

export function ScopeFilter({ values, onChange }: { values: ScopeValues; onChange: (values: ScopeValues) => void }) {
  const active = SCOPE_AXES.filter((axis) => values[axis]).length
  return (
    <Popover>
      <PopoverTrigger className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), active && 'border-primary/50')}>
        Scope
        {active > 0 && <Badge className="px-1 font-mono">{active}</Badge>}
        <ChevronDown className="text-muted-foreground" />
      </PopoverTrigger>
      <PopoverContent className="w-72">
        <ScopeForm values={values} onChange={onChange} />
      </PopoverContent>
    </Popover>
  )
}
