// A model call in full, read from its debug log (GET /api/traces/calls/{id}): the request settings,
// the instructions and tool definitions, the history sent, the turns that came back, usage, the
// finish reason and the provider's response id; a note when a body was cut to a preview.
import { Collapsible } from '@/components/ui/collapsible'
import { ErrorState } from '@/components/common/States'
import { JsonView } from '@/components/json/JsonView'
import { Skeleton } from '@/components/ui/skeleton'
import { formatBytes, formatDuration, formatInt } from '@/lib/format'
import { formatMoney } from '@/features/spend/money'
import { ContextBar, useCallContext } from '@/features/playground/ContextBars'
import type { ModelCall, TraceNode } from './api'
import { ErrorText, Fact, IdFact, Section } from './Facts'
import { formatMoment } from './format'
import { Instructions, Messages, Value } from './Messages'
import { useModelCall } from './queries'

type Data = Record<string, unknown>

/** What filled this call's prompt, by source (only for the calls of a run a turn recorded). */
function CallContext({ id }: { id: string }) {
  const { data } = useCallContext(id)
  const context = data?.context
  if (!context) return null
  return (
    <Section title="What filled the prompt" testId="call-context">
      <ContextBar context={context} title={`Request ${context.position + 1} of the turn`} />
    </Section>
  )
}

const objectOf = (value: unknown): Data => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Data) : {})

function Call({ call }: { call: ModelCall }) {
  const data = call.data
  const request = objectOf(data.request)
  const settings = objectOf(request.settings)
  const response = objectOf(data.response)
  const reasons = Array.isArray(response.finish_reasons) ? response.finish_reasons.map(String) : []
  const tools = data.tool_definitions
  const bodiesKept = data.history !== undefined || data.turns !== undefined
  return (
    <div className="min-w-0 space-y-4" data-testid="model-call" data-truncated={call.truncated}>
      {call.truncated && (
        <p role="note" className="rounded-md border border-warning/40 bg-warning/10 px-3 py-2 text-xs text-warning" data-testid="model-call-truncated">
          Some bodies were larger than the debug body limit (debug_body_bytes) and are kept as a preview with their size.
        </p>
      )}
      {!bodiesKept && (
        <p role="note" className="rounded-md border bg-muted/40 px-3 py-2 text-xs text-muted-foreground" data-testid="model-call-no-bodies">
          The request and response bodies were not kept for this turn. They are kept for playground turns (debug_playground), for
          every turn with debug on, and for the agents listed in debug_agents.
        </p>
      )}
      <ErrorText error={call.error} />
      <dl className="grid grid-cols-2 gap-3">
        <Fact label="Model" testId="call-model">
          {call.provider ? `${call.provider}:${call.model ?? '?'}` : (call.model ?? '—')}
        </Fact>
        <Fact label="Action">{call.action}</Fact>
        <Fact label="Tokens" testId="call-tokens">
          {formatInt(call.input_tokens)} in · {formatInt(call.output_tokens)} out
        </Fact>
        <Fact label="Cost" testId="call-cost">
          {formatMoney(call.cost, 'USD', { exact: true })}
        </Fact>
        <Fact label="Finish reason" testId="call-finish">
          {call.finish_reason ?? (reasons.length ? reasons.join(', ') : '—')}
        </Fact>
        <Fact label="Duration">{formatDuration(call.duration_ms)}</Fact>
        <Fact label="Started">{formatMoment(call.started_at)}</Fact>
        <Fact label="Logged">{formatBytes(call.data_bytes)}</Fact>
      </dl>
      <dl className="grid gap-3">
        <IdFact label="Debug id" value={call.id} />
        {typeof response.id === 'string' && <IdFact label="Response id" value={response.id} hint="the provider's" />}
      </dl>
      <CallContext id={call.id} />
      <Section title="Request settings" testId="call-settings">
        {Object.keys(settings).length ? <JsonView value={settings} /> : <p className="text-xs text-muted-foreground">The model's defaults (no settings sent).</p>}
      </Section>
      {data.instructions !== undefined && data.instructions !== null && (
        <Section title="Instructions">
          <Instructions value={data.instructions} />
        </Section>
      )}
      <Section title="History sent" testId="call-history">
        <Messages value={data.history} empty="No messages were recorded." />
      </Section>
      <Section title="Came back" testId="call-turns">
        <Messages value={data.turns} empty="Nothing came back." />
      </Section>
      <Section title="Usage" testId="call-usage">
        <JsonView value={data.usage ?? {}} />
      </Section>
      {Array.isArray(tools) && tools.length > 0 ? (
        <Collapsible label={`Tool definitions (${tools.length})`}>
          <Value value={tools} />
        </Collapsible>
      ) : (
        tools !== undefined && tools !== null && (
          <Collapsible label="Tool definitions">
            <Value value={tools} />
          </Collapsible>
        )
      )}
      {data.parameters !== undefined && data.parameters !== null && (
        <Collapsible label="Request parameters">
          <Value value={data.parameters} />
        </Collapsible>
      )}
      <Collapsible label="Everything logged (JSON)">
        <JsonView value={data} openDepth={1} />
      </Collapsible>
    </div>
  )
}

export function ModelCallPanel({ node }: { node: TraceNode }) {
  const call = useModelCall(node.id)
  if (call.data) return <Call call={call.data} />
  if (call.error !== undefined) return <ErrorState error={call.error} retry={call.reload} className="py-6" />
  return <Skeleton className="h-48" />
}
