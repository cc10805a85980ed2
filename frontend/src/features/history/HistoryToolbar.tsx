import { ArrowDownUp, GitFork, Search, X } from '@/components/icons'
import { useEffect, useRef, useState } from 'react'
import { ORIGINS, type AgentCard, type Origin } from '@/lib/api/types'
import { isTyping, mod, useShortcut } from '@/lib/shortcuts'
import { Badge } from '@/components/ui/badge'
import { Button, buttonVariants } from '@/components/ui/button'
import { DropdownMenu, DropdownMenuContent, DropdownMenuRadioGroup, DropdownMenuRadioItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { Input } from '@/components/ui/input'
import { MultiSelect } from '@/components/ui/multi-select'
import { DateRange } from './DateRange'
import { activeFilterCount, NO_FILTERS, type HistoryState, type Sort, type StatusFilter } from './historyParams'
import { ScopeFilter } from './ScopeFilter'

const ORIGIN_HINT: Record<Origin, string> = {
  playground: 'this dashboard',
  app: 'your application',
  task: 'a background task',
  workflow: 'a workflow step',
  eval: 'an eval run',
  mcp: 'a coding assistant, through synapse mcp',
}

const STATUS: [StatusFilter, string][] = [
  ['', 'All'],
  ['success', 'Success'],
  ['error', 'Error'],
]

function SearchBox({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const [text, setText] = useState(value)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => setText(value), [value])
  useEffect(() => {
    if (text === value) return
    const timer = window.setTimeout(() => onChange(text), 300)
    return () => window.clearTimeout(timer)
  }, [text, value, onChange])
  useShortcut((event) => {
    if (event.key === '/' && !isTyping(event.target) && !mod(event)) {
      input.current?.focus()
      return true
    }
    return false
  })
  return (
    <div className="relative min-w-56 flex-1 sm:max-w-xs">
      <Search className="pointer-events-none absolute left-2.5 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
      <Input
        ref={input}
        type="search"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => event.key === 'Enter' && onChange(text)}
        placeholder="Search titles and messages  ( / )"
        aria-label="Search conversations"
        className="h-8 pl-8 text-[13px]"
      />
    </div>
  )
}

export function HistoryToolbar({
  state,
  agents,
  onChange,
}: {
  state: HistoryState
  agents: AgentCard[]
  onChange: (change: Partial<HistoryState>) => void
}) {
  const active = activeFilterCount(state)
  const agentOptions = agents.map((agent) => ({ value: agent.slug, label: agent.name, hint: agent.model?.name }))
  const toolNames = [...new Set(agents.flatMap((agent) => agent.tools))].sort()
  return (
    <div className="flex flex-wrap items-center gap-2 px-6 py-3" role="search">
      <SearchBox value={state.search} onChange={(search) => onChange({ search })} />
      <MultiSelect label="Agents" options={agentOptions} selected={state.agents} onChange={(values) => onChange({ agents: values })} />
      <div className="inline-flex h-8 items-center rounded-md border p-0.5" role="radiogroup" aria-label="Status">
        {STATUS.map(([value, name]) => (
          <button
            key={name}
            type="button"
            role="radio"
            aria-checked={state.status === value}
            onClick={() => onChange({ status: value })}
            className="h-6 cursor-pointer rounded px-2 text-xs text-muted-foreground hover:text-foreground aria-checked:bg-accent aria-checked:text-foreground"
          >
            {name}
          </button>
        ))}
      </div>
      <MultiSelect label="Tools" options={toolNames.map((tool) => ({ value: tool, label: tool }))} selected={state.tools} onChange={(values) => onChange({ tools: values })} />
      <DateRange from={state.from} to={state.to} onChange={(from, to) => onChange({ from, to })} />
      <MultiSelect
        label="Origin"
        options={ORIGINS.map((origin) => ({ value: origin, label: origin, hint: ORIGIN_HINT[origin] }))}
        selected={state.origins}
        onChange={(values) => onChange({ origins: values as Origin[] })}
      />
      <ScopeFilter values={{ tenant: state.tenant, actor: state.actor, subject: state.subject }} onChange={(scope) => onChange(scope)} />
      {state.forkedFrom && (
        <Badge variant="outline" className="h-8 gap-1.5 px-2 text-[13px]" data-testid="forked-from-filter">
          <GitFork /> Forks of <span className="max-w-28 truncate font-mono text-xs">{state.forkedFrom}</span>
          <button type="button" onClick={() => onChange({ forkedFrom: '' })} aria-label="Show every conversation, not only forks" className="cursor-pointer rounded text-muted-foreground hover:text-foreground">
            <X />
          </button>
        </Badge>
      )}
      {active > 0 && (
        <Button variant="ghost" size="sm" onClick={() => onChange({ ...NO_FILTERS })} data-testid="clear-filters">
          <Badge className="px-1 font-mono" aria-label={`${active} active filters`}>
            {active}
          </Badge>
          Clear filters <X />
        </Button>
      )}
      <div className="ml-auto">
        <DropdownMenu>
          <DropdownMenuTrigger className={buttonVariants({ variant: 'ghost', size: 'sm' })} aria-label="Sort">
            <ArrowDownUp className="text-muted-foreground" />
            {state.sort === 'newest' ? 'Newest first' : 'Oldest first'}
          </DropdownMenuTrigger>
          <DropdownMenuContent align="end">
            <DropdownMenuRadioGroup value={state.sort} onValueChange={(value) => onChange({ sort: value as Sort })}>
              <DropdownMenuRadioItem value="newest">Newest first</DropdownMenuRadioItem>
              <DropdownMenuRadioItem value="oldest">Oldest first</DropdownMenuRadioItem>
            </DropdownMenuRadioGroup>
          </DropdownMenuContent>
        </DropdownMenu>
      </div>
    </div>
  )
}
