// Under an answer whose run paused on tool calls: each call with its arguments and what it waits
// for. Approve or Deny it (a denial may say why: the model is told), or paste the result of a call
// that runs outside the agent; "Send decisions" sends every answer at once and the run resumes.
// Decided calls read back what was decided. The live turn and its stored replay look the same.
import { Check, CheckCircle2, CircleSlash, Clock, Wrench, X } from '@/components/icons'
import { useState, type FormEvent } from 'react'
import { messageOf } from '@/components/common/States'
import { JsonView } from '@/components/json/JsonView'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Textarea } from '@/components/ui/textarea'
import { cn } from '@/lib/cn'
import { denialReason, pauseKindOf, readResult, type Answer, type Decision, type PauseKind } from '@/lib/stream/approval'
import type { ToolView } from '@/lib/thread'
import { usePausedCalls, type PausedCall } from './usePausedCalls'

/** The server's longest denial reason. */
const MAX_REASON = 2000

interface Choice {
  verdict: 'approve' | 'deny' | null
  reason: string
  result: string
}

const NO_CHOICE: Choice = { verdict: null, reason: '', result: '' }

function decisionOf(kind: PauseKind, choice: Choice): Decision | null {
  if (kind === 'external') return choice.result.trim() ? { result: readResult(choice.result) } : null
  if (choice.verdict === 'approve') return { approved: true }
  if (choice.verdict === 'deny') {
    const reason = choice.reason.trim()
    return reason ? { approved: false, reason } : { approved: false }
  }
  return null
}

/** What was decided, read-only. */
function Decided({ tool }: { tool: ToolView }) {
  if (tool.status === 'approved')
    return (
      <p className="flex items-center gap-1.5 text-xs font-medium text-success">
        <CheckCircle2 className="size-3.5" /> Approved
      </p>
    )
  if (tool.status === 'denied') {
    const reason = denialReason(tool)
    return (
      <p className="flex items-start gap-1.5 text-xs font-medium text-destructive">
        <CircleSlash className="mt-px size-3.5" />
        <span className="whitespace-pre-wrap break-words">{reason ? `Denied: ${reason}` : 'Denied'}</span>
      </p>
    )
  }
  return (
    <div className="space-y-1.5">
      <p className="flex items-center gap-1.5 text-xs font-medium text-success">
        <CheckCircle2 className="size-3.5" /> Result supplied
      </p>
      <JsonView value={tool.result ?? null} />
    </div>
  )
}

function ApprovalControls({ name, choice, onChange }: { name: string; choice: Choice; onChange: (choice: Choice) => void }) {
  return (
    <div className="space-y-2">
      <div role="group" aria-label={`Decision on ${name}`} className="flex gap-1.5">
        <Button
          size="sm"
          variant={choice.verdict === 'approve' ? 'default' : 'outline'}
          aria-pressed={choice.verdict === 'approve'}
          onClick={() => onChange({ ...choice, verdict: 'approve' })}
        >
          <Check /> Approve
        </Button>
        <Button
          size="sm"
          variant={choice.verdict === 'deny' ? 'destructive' : 'outline'}
          aria-pressed={choice.verdict === 'deny'}
          onClick={() => onChange({ ...choice, verdict: 'deny' })}
        >
          <X /> Deny
        </Button>
      </div>
      {choice.verdict === 'deny' && (
        <Input
          value={choice.reason}
          maxLength={MAX_REASON}
          onChange={(event) => onChange({ ...choice, reason: event.target.value })}
          aria-label={`Reason for denying ${name} (optional)`}
          placeholder="Reason (optional): the model is told why"
          className="h-8 text-[13px]"
        />
      )}
    </div>
  )
}

function ResultField({ name, choice, onChange }: { name: string; choice: Choice; onChange: (choice: Choice) => void }) {
  const text = choice.result.trim()
  const asJson = text !== '' && readResult(text) !== text
  return (
    <div className="space-y-1">
      <Textarea
        rows={3}
        value={choice.result}
        onChange={(event) => onChange({ ...choice, result: event.target.value })}
        aria-label={`Result of ${name}`}
        placeholder="Paste the result: JSON, or plain text"
        className="rounded-md border border-input px-2.5 py-2 font-mono text-xs"
      />
      <p className="text-[11px] text-muted-foreground">{text ? (asJson ? 'Sent as JSON.' : 'Sent as text.') : 'This tool runs outside the agent: supply what it returned.'}</p>
    </div>
  )
}

function CallRow({ call, choice, interactive, onChange }: { call: PausedCall; choice: Choice; interactive: boolean; onChange: (choice: Choice) => void }) {
  const { tool } = call
  const kind = pauseKindOf(tool) ?? 'approval'
  const waiting = tool.status === 'awaiting'
  return (
    <li className="space-y-2 rounded-md border bg-card p-2.5" data-testid="approval-call" data-status={tool.status} data-kind={kind}>
      <div className="flex items-center gap-2">
        <Wrench className="size-3.5 text-muted-foreground" />
        <span className="min-w-0 truncate font-mono font-medium">{tool.name || 'tool'}</span>
        <span className="text-[11px] text-muted-foreground">{kind === 'external' ? 'runs outside the agent' : 'needs approval'}</span>
      </div>
      <JsonView value={tool.args ?? {}} />
      {!waiting ? (
        <Decided tool={tool} />
      ) : !interactive || !call.ready ? (
        <p className="text-xs text-muted-foreground">{call.ready ? (kind === 'external' ? 'Waiting for its result.' : 'Waiting for a decision.') : 'Reading the call…'}</p>
      ) : kind === 'external' ? (
        <ResultField name={tool.name} choice={choice} onChange={onChange} />
      ) : (
        <ApprovalControls name={tool.name} choice={choice} onChange={onChange} />
      )}
    </li>
  )
}

/**
 * The paused calls of one answer. `onSend` (absent: read-only, e.g. while a turn runs) gets every
 * awaiting call's answer; `error` is why the last sending was refused.
 */
export function ApprovalCard({ tools, onSend, error }: { tools: ToolView[]; onSend?: (answers: Answer[]) => void; error?: string | null }) {
  // By position: a live call and its stored copy have different ids.
  const [choices, setChoices] = useState<Choice[]>([])
  const { calls, error: lookupError } = usePausedCalls(tools)
  const waiting = calls.filter((call) => call.tool.status === 'awaiting')
  const interactive = Boolean(onSend) && waiting.length > 0
  const answers = calls.flatMap((call, index): Answer[] => {
    if (call.tool.status !== 'awaiting' || !call.ready) return []
    const decision = decisionOf(pauseKindOf(call.tool) ?? 'approval', choices[index] ?? NO_CHOICE)
    return decision ? [{ tool: call.shown, callId: call.tool.callId, decision }] : []
  })
  const complete = waiting.length > 0 && answers.length === waiting.length

  const change = (index: number, choice: Choice) =>
    setChoices((current) => {
      const next = calls.map((_, i) => current[i] ?? NO_CHOICE)
      next[index] = choice
      return next
    })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (complete && onSend) onSend(answers)
  }

  const title = waiting.length
    ? waiting.length === 1
      ? 'The run waits for your decision on a tool call'
      : `The run waits for your decisions on ${waiting.length} tool calls`
    : 'Tool calls decided'
  return (
    <section
      aria-label={waiting.length ? 'Tool calls waiting for a decision' : 'Tool call decisions'}
      data-testid="approval-card"
      data-awaiting={waiting.length > 0}
      className={cn('rounded-lg border p-3 text-[13px]', waiting.length ? 'border-warning/50 bg-warning/5' : 'bg-muted/30')}
    >
      <form onSubmit={submit} className="space-y-2.5">
        <h3 className="flex items-center gap-1.5 text-xs font-medium">
          <Clock className={cn('size-3.5', waiting.length ? 'text-warning' : 'text-muted-foreground')} />
          {title}
        </h3>
        <ul className="space-y-2">
          {calls.map((call, index) => (
            <CallRow key={index} call={call} choice={choices[index] ?? NO_CHOICE} interactive={interactive} onChange={(choice) => change(index, choice)} />
          ))}
        </ul>
        {interactive && (
          <div className="flex items-center gap-2">
            <span className="text-xs text-muted-foreground" aria-live="polite">
              {answers.length} of {waiting.length} decided
            </span>
            <Button type="submit" size="sm" className="ml-auto" disabled={!complete}>
              Send decisions
            </Button>
          </div>
        )}
        {(error || lookupError !== undefined) && (
          <p role="alert" className="text-xs text-destructive">
            {error ?? `The waiting calls could not be read: ${messageOf(lookupError)}`}
          </p>
        )}
      </form>
    </section>
  )
}

/** What the composer says while the thread waits for decisions of these kinds. */
export function awaitingHint(kinds: ReadonlySet<PauseKind>): string {
  return kinds.has('approval') ? 'Approve or deny the tool calls above to continue' : 'Supply the tool results above to continue'
}
