// /traces — every traced root run, newest first (nested runs are inside their root's trace),
// narrowed by agent, origin and "errors only" (kept in the URL), paged with "Load more". A root
// opens /traces/<agent_run_id>. Loaded on its own when first opened (App.tsx).
import { RotateCw } from '@/components/icons'
import { useEffect, useRef, useState } from 'react'
import { useSearchParams } from 'react-router'
import { PageHeader } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { useAgents, useHealth } from '@/lib/queries'
import { invalidate } from '@/lib/resource'
import { ORIGINS } from './api'
import { originLabel } from './format'
import { useNow } from './queries'
import { RootPage } from './RootList'

/** How long the agent box waits after the last key before it filters. */
const TYPING_MS = 300

/** The API filters the page's URL holds: `agent`, `origin`, `errors=true`. */
export function filtersOf(params: URLSearchParams): URLSearchParams {
  const filters = new URLSearchParams()
  const agent = params.get('agent')?.trim()
  const origin = params.get('origin')
  if (agent) filters.set('agent', agent)
  if (origin && (ORIGINS as readonly string[]).includes(origin)) filters.set('origin', origin)
  if (params.get('errors') === 'true') filters.set('errors', 'true')
  return filters
}

function Filters({ params, onChange }: { params: URLSearchParams; onChange: (name: string, value: string) => void }) {
  const agent = params.get('agent') ?? ''
  const [typed, setTyped] = useState(agent)
  const agents = useAgents().data?.agents.map((one) => one.slug) ?? []
  // What this box last put in the URL: a different value there came from elsewhere (back, a link)
  // and replaces the box's text; its own, landing while the user types on, does not.
  const sent = useRef(agent)
  useEffect(() => {
    if (agent === sent.current) return
    sent.current = agent
    setTyped(agent)
  }, [agent])
  useEffect(() => {
    if (typed.trim() === sent.current) return
    const timer = window.setTimeout(() => {
      sent.current = typed.trim()
      onChange('agent', typed)
    }, TYPING_MS)
    return () => window.clearTimeout(timer)
  }, [typed, onChange])
  return (
    <form
      role="search"
      aria-label="Filter traces"
      className="flex flex-wrap items-end gap-3"
      onSubmit={(event) => {
        event.preventDefault()
        sent.current = typed.trim()
        onChange('agent', typed)
      }}
    >
      <label className="grid min-w-0 flex-1 basis-48 gap-1 text-xs text-muted-foreground sm:max-w-md">
        Agent
        <Input
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          placeholder="An agent slug"
          className="h-8 font-mono text-[13px]"
          maxLength={255}
          list="trace-agents"
          spellCheck={false}
        />
        <datalist id="trace-agents">
          {agents.map((slug) => (
            <option key={slug} value={slug} />
          ))}
        </datalist>
      </label>
      <label className="grid gap-1 text-xs text-muted-foreground">
        Origin
        <select
          value={params.get('origin') ?? ''}
          onChange={(event) => onChange('origin', event.target.value)}
          className="h-8 rounded-md border border-input bg-transparent px-2 text-[13px] text-foreground"
        >
          <option value="">Any origin</option>
          {ORIGINS.map((origin) => (
            <option key={origin} value={origin}>
              {originLabel(origin)}
            </option>
          ))}
        </select>
      </label>
      <label className="flex h-8 cursor-pointer items-center gap-2 text-[13px]">
        <input type="checkbox" checked={params.get('errors') === 'true'} onChange={(event) => onChange('errors', event.target.checked ? 'true' : '')} className="size-4 accent-destructive" />
        Errors only
      </label>
    </form>
  )
}

/** Why Synapse records no traces at all, as `/api/health` says it (nothing when it can trace). */
function TracingUnavailable() {
  const lost = useHealth().data?.degraded?.find((entry) => entry.feature === 'traces')
  if (!lost) return null
  return (
    <div role="alert" className="rounded-md border border-destructive/40 bg-destructive/5 px-3 py-2 text-[13px]" data-testid="traces-unavailable">
      <p className="font-medium">Synapse cannot record traces here</p>
      <p className="text-muted-foreground">
        {lost.lost} (missing <code>{lost.missing}</code>, pydantic-ai {lost.pydantic_ai_version}).
      </p>
    </div>
  )
}

export default function TracesPage() {
  const [params, setParams] = useSearchParams()
  const query = params.toString()
  // The URL is the source of truth (reload, back, shared links); a local copy makes each control
  // answer at once instead of waiting for the router's transition.
  const [shown, setShown] = useState(() => filtersOf(params).toString())
  useEffect(() => setShown(filtersOf(new URLSearchParams(query)).toString()), [query])
  const filters = new URLSearchParams(shown)
  const key = shown
  // The cursor of each page on screen after the first ('' is the first).
  const [pages, setPages] = useState<{ key: string; cursors: string[] }>({ key, cursors: [''] })
  const cursors = pages.key === key ? pages.cursors : ['']
  const now = useNow()
  const change = (name: string, value: string) => {
    const edit = (was: URLSearchParams) => {
      const next = new URLSearchParams(was)
      if (value.trim()) next.set(name, value.trim())
      else next.delete(name)
      return next
    }
    setShown((was) => filtersOf(edit(new URLSearchParams(was))).toString())
    setParams(edit, { replace: name === 'agent' })
  }
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="traces-page">
      <PageHeader
        title="Traces"
        description="Each traced run with everything inside it: its model calls, its tool calls and the agents they started."
        actions={
          <Button variant="outline" size="sm" onClick={() => invalidate('traces:roots')}>
            <RotateCw /> Refresh
          </Button>
        }
      />
      <div className="min-w-0 space-y-4 px-4 py-4 sm:px-6">
        <TracingUnavailable />
        <Filters params={filters} onChange={change} />
        <div className="min-w-0 space-y-2">
          {cursors.map((before, index) => (
            <RootPage
              key={`${key}|${before}`}
              filters={filters}
              before={before}
              last={index === cursors.length - 1}
              filtered={key !== ''}
              now={now}
              onMore={(next) => setPages({ key, cursors: [...cursors, next] })}
            />
          ))}
        </div>
      </div>
    </div>
  )
}
