// A model call's bodies in the OpenTelemetry GenAI form: messages (a role and its parts: text,
// thinking, tool calls and their results), instructions, and a body cut to a preview when it was
// larger than `debug_body_bytes`. Everything is React text or the JSON viewer, never HTML.
import { Braces, MessageSquare, Wrench } from '@/components/icons'
import type { ReactNode } from 'react'
import { LongText } from '@/components/common/LongText'
import { JsonView } from '@/components/json/JsonView'
import { Badge } from '@/components/ui/badge'
import { formatBytes } from '@/lib/format'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A body the server kept as a preview: `{truncated: true, bytes, preview}`. */
export interface CutBody {
  truncated: true
  bytes: number
  preview: string
}

export function isCut(value: unknown): value is CutBody {
  return isObject(value) && value.truncated === true && typeof value.preview === 'string'
}

/** A string holding JSON, parsed; anything else as it is. */
export function parsedJson(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value
  try {
    return JSON.parse(value) as unknown
  } catch {
    return value
  }
}

export function CutNote({ body }: { body: CutBody }) {
  return (
    <div className="space-y-1.5" data-testid="cut-body">
      <p className="text-xs text-warning">
        Larger than the debug body limit: {formatBytes(body.bytes)} of JSON, kept as a preview.
      </p>
      <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-all rounded-md border bg-muted/40 px-3 py-2 font-mono text-xs">{body.preview}…</pre>
    </div>
  )
}

/** Text as text, anything else in the JSON viewer, a cut body as its preview. */
export function Value({ value }: { value: unknown }) {
  if (isCut(value)) return <CutNote body={value} />
  const parsed = parsedJson(value)
  if (typeof parsed === 'string')
    return (
      <p className="whitespace-pre-wrap break-words rounded-md border bg-muted/40 px-3 py-2 text-[13px]">
        <LongText text={parsed} limit={4000} />
      </p>
    )
  return <JsonView value={parsed} />
}

function PartLine({ icon, title, children }: { icon: ReactNode; title: ReactNode; children?: ReactNode }) {
  return (
    <div className="min-w-0 space-y-1">
      <p className="flex min-w-0 items-center gap-1.5 text-xs text-muted-foreground [&_svg]:size-3.5">
        {icon}
        <span className="min-w-0 truncate">{title}</span>
      </p>
      {children}
    </div>
  )
}

function Part({ part }: { part: unknown }) {
  if (!isObject(part)) return <Value value={part} />
  const name = typeof part.name === 'string' ? part.name : 'tool'
  switch (part.type) {
    case 'text':
      return typeof part.content === 'string' ? (
        <p className="whitespace-pre-wrap break-words text-[13px]" data-testid="message-text">
          <LongText text={part.content} limit={4000} />
        </p>
      ) : (
        <Value value={part.content} />
      )
    case 'thinking':
    case 'reasoning':
      return (
        <PartLine icon={<MessageSquare />} title="Thinking">
          <p className="whitespace-pre-wrap break-words text-[13px] italic text-muted-foreground">
            <LongText text={String(part.content ?? '')} limit={4000} />
          </p>
        </PartLine>
      )
    case 'tool_call':
      return (
        <PartLine icon={<Wrench />} title={<>Calls <span className="font-mono text-foreground">{name}</span></>}>
          <Value value={part.arguments ?? {}} />
        </PartLine>
      )
    case 'tool_call_response':
      return (
        <PartLine icon={<Braces />} title={<><span className="font-mono text-foreground">{name}</span> returned</>}>
          <Value value={part.result ?? part.response ?? null} />
        </PartLine>
      )
    default:
      return <JsonView value={part} openDepth={1} />
  }
}

const ROLE_LABEL: Record<string, string> = { system: 'System', user: 'User', assistant: 'Model', tool: 'Tool' }

function Message({ message }: { message: unknown }) {
  if (!isObject(message)) return <Value value={message} />
  const role = typeof message.role === 'string' ? message.role : 'message'
  const parts = Array.isArray(message.parts) ? message.parts : [message]
  return (
    <li className="min-w-0 space-y-2 rounded-md border bg-card px-3 py-2" data-testid="trace-message" data-role={role}>
      <div className="flex flex-wrap items-center gap-2">
        <Badge variant={role === 'assistant' ? 'default' : 'secondary'}>{ROLE_LABEL[role] ?? role}</Badge>
        {typeof message.finish_reason === 'string' && <span className="text-[11px] text-muted-foreground">finish: {message.finish_reason}</span>}
      </div>
      {parts.map((part, index) => (
        <Part key={index} part={part} />
      ))}
    </li>
  )
}

/** A list of messages (the history sent, the turns back); a cut or odd body as it is. */
export function Messages({ value, empty }: { value: unknown; empty: string }) {
  if (value === null || value === undefined) return <p className="text-xs text-muted-foreground">{empty}</p>
  if (!Array.isArray(value)) return <Value value={value} />
  if (value.length === 0) return <p className="text-xs text-muted-foreground">{empty}</p>
  return (
    <ol className="space-y-2">
      {value.map((message, index) => (
        <Message key={index} message={message} />
      ))}
    </ol>
  )
}

/** The instructions sent: their text parts as text. */
export function Instructions({ value }: { value: unknown }) {
  if (Array.isArray(value) && value.every((part) => isObject(part) && part.type === 'text' && typeof part.content === 'string'))
    return (
      <div className="space-y-2 rounded-md border bg-muted/40 px-3 py-2">
        {value.map((part, index) => (
          <p key={index} className="whitespace-pre-wrap break-words text-[13px]">
            <LongText text={String((part as Json).content)} limit={4000} />
          </p>
        ))}
      </div>
    )
  return <Value value={value} />
}
