// The selected node in full. A run: its origin, depth, model, tokens, cost, counts, ids (the trace
// id finds it in a tracing tool), its conversation and output. A tool call: its arguments and
// result. A model call: its debug log (ModelCallPanel).
import { MessageSquare } from '@/components/icons'
import { Link } from 'react-router'
import { OutputText } from '@/components/markdown/OutputText'
import { buttonVariants } from '@/components/ui/button'
import { conversationPath } from '@/features/conversations/paths'
import { formatDuration, formatInt } from '@/lib/format'
import type { TraceNode } from './api'
import { ErrorText, Fact, IdFact, OriginBadge, Section, StatusBadge } from './Facts'
import { costText, formatMoment, kindLabel, offsetText, tokensText } from './format'
import { ModelCallPanel } from './ModelCallPanel'
import { parsedJson, Value } from './Messages'
import { KIND_ICON } from './TraceTimeline'

function RunDetail({ run }: { run: TraceNode }) {
  return (
    <div className="min-w-0 space-y-4" data-testid="run-detail">
      <ErrorText error={run.error} />
      <dl className="grid grid-cols-2 gap-3">
        <Fact label="Origin" testId="run-origin">
          <OriginBadge origin={run.origin} />
        </Fact>
        <Fact label="Depth" testId="run-depth">
          {run.depth ?? '—'}
        </Fact>
        <Fact label="Model">{run.model ?? '—'}</Fact>
        <Fact label="Tokens" testId="run-tokens">
          {tokensText(run) ?? '—'}
        </Fact>
        <Fact label="Cost" testId="run-cost">
          {costText(run)}
        </Fact>
        <Fact label="Calls">
          {formatInt(run.model_calls)} model · {formatInt(run.tool_calls)} tool
        </Fact>
        {run.agent_key && <Fact label="Agent">{run.agent_key}</Fact>}
        {run.module && <Fact label="Module">{run.module}</Fact>}
      </dl>
      <dl className="grid gap-3">
        <IdFact label="Agent run id" value={run.agent_run_id} />
        <IdFact label="Parent run id" value={run.parent_run_id} />
        <IdFact label="Trace id" value={run.trace_id} hint="find it in your tracing tool" />
        {run.workflow_run_id && <IdFact label="Workflow run id" value={run.workflow_run_id} />}
      </dl>
      {run.conversation_id && run.agent_key && (
        <Link to={conversationPath(run.agent_key, run.conversation_id)} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
          <MessageSquare /> Open the conversation
        </Link>
      )}
      {run.output !== null && run.output !== undefined && (
        <Section title="Output" testId="run-output">
          {typeof run.output === 'string' && typeof parsedJson(run.output) === 'string' ? <OutputText text={run.output} testId="run-output-text" /> : <Value value={run.output} />}
        </Section>
      )}
    </div>
  )
}

function ToolDetail({ tool }: { tool: TraceNode }) {
  return (
    <div className="min-w-0 space-y-4" data-testid="tool-detail">
      <ErrorText error={tool.error} />
      <dl className="grid gap-3">
        <IdFact label="Tool call id" value={tool.tool_call_id} />
      </dl>
      <Section title="Arguments" testId="tool-arguments">
        <Value value={tool.arguments ?? {}} />
      </Section>
      {tool.status !== 'error' && (
        <Section title="Result" testId="tool-result">
          <Value value={tool.result ?? null} />
        </Section>
      )}
      {tool.children.length > 0 && (
        <p className="text-xs text-muted-foreground">
          Started {tool.children.length === 1 ? 'a run' : `${tool.children.length} runs`}: {tool.children.map((child) => child.name).join(', ')}.
        </p>
      )}
    </div>
  )
}

export function NodeDetail({ node, root }: { node: TraceNode; root: TraceNode }) {
  return (
    <article className="min-w-0 space-y-4" aria-label={`${kindLabel(node.kind)} ${node.name}`} data-testid="node-detail" data-kind={node.kind}>
      <header className="space-y-1.5">
        <p className="flex items-center gap-1.5 text-xs text-muted-foreground [&_svg]:size-3.5">
          {KIND_ICON[node.kind]} {kindLabel(node.kind)}
        </p>
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <h3 className="min-w-0 break-all font-mono text-sm font-medium" data-testid="node-detail-name">
            {node.name}
          </h3>
          <StatusBadge status={node.status} />
        </div>
        <p className="flex flex-wrap gap-x-3 text-xs text-muted-foreground">
          <span>{formatDuration(node.duration_ms)}</span>
          <span title={formatMoment(node.started_at)}>{offsetText(node.started_at, root.started_at)} into the trace</span>
          <time dateTime={node.started_at}>{formatMoment(node.started_at)}</time>
        </p>
      </header>
      {node.kind === 'run' && <RunDetail run={node} />}
      {node.kind === 'tool' && <ToolDetail tool={node} />}
      {node.kind === 'model' && <ModelCallPanel key={node.id} node={node} />}
    </article>
  )
}
