// "Chat as": the tenant, person and subject a new conversation is created with, beside the model
// picker. A conversation keeps the scope it was created with, so once there is one the control
// only shows it.
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Popover, PopoverContent, PopoverTrigger } from '@/components/ui/popover'
import { SCOPE_AXES, type ScopeAxis } from '@/lib/api/types'
import { cn } from '@/lib/cn'
import { refText, scopeParts, type Scoped } from '@/features/conversations/scope'
import { labelsLine, NOBODY, type ChatAsLabels } from './chatAsLabels'

const LABEL: Record<ScopeAxis, string> = { tenant: 'Tenant', actor: 'Person (actor)', subject: 'Subject' }
const PLACEHOLDER: Record<ScopeAxis, string> = { tenant: 'org:acme', actor: 'user:42', subject: 'case:7' }

function ChatAsForm({ labels, onChange, disabled }: { labels: ChatAsLabels; onChange: (labels: ChatAsLabels) => void; disabled: boolean }) {
  return (
    <fieldset disabled={disabled} className="space-y-2.5" aria-label="Chat as">
      {SCOPE_AXES.map((axis) => (
        <label key={axis} className="block space-y-1 text-xs text-muted-foreground">
          {LABEL[axis]}
          <Input
            value={labels[axis]}
            onChange={(event) => onChange({ ...labels, [axis]: event.target.value })}
            placeholder={PLACEHOLDER[axis]}
            spellCheck={false}
            autoComplete="off"
            className="h-8 font-mono text-xs"
          />
        </label>
      ))}
      <p className="text-[11px] text-muted-foreground">Rules, memories and spending limits of this tenant and person apply. Empty: none.</p>
      {labelsLine(labels) && (
        <Button size="xs" variant="ghost" onClick={() => onChange(NOBODY)}>
          Clear
        </Button>
      )}
    </fieldset>
  )
}

function KeptScope({ scoped }: { scoped: Scoped | undefined }) {
  const parts = scoped ? scopeParts(scoped) : []
  return (
    <div className="space-y-2 text-xs" data-testid="kept-scope">
      {scoped &&
        (parts.length ? (
          <dl className="space-y-0.5">
            {parts.map(({ axis, ref }) => (
              <div key={axis} className="flex justify-between gap-4">
                <dt className="text-muted-foreground">{LABEL[axis]}</dt>
                <dd className="font-mono">{refText(ref)}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <p>No tenant, person or subject.</p>
        ))}
      <p className="text-[11px] text-muted-foreground">A conversation keeps the scope it was created with: start a new conversation to chat as someone else.</p>
    </div>
  )
}

export function ChatAs({
  labels,
  onChange,
  conversation,
  disabled,
}: {
  labels: ChatAsLabels
  onChange: (labels: ChatAsLabels) => void
  /** The conversation on screen: null for a new one; undefined while an existing one loads. */
  conversation: Scoped | null | undefined
  disabled: boolean
}) {
  const isNew = conversation === null
  const summary = isNew ? labelsLine(labels) : ''
  return (
    <Popover>
      <PopoverTrigger
        aria-label="Chat as"
        title={summary ? `Chat as ${summary}` : undefined}
        className={cn(
          'flex h-7 max-w-56 cursor-pointer items-center gap-1.5 rounded-md px-2 text-xs text-muted-foreground hover:bg-accent hover:text-foreground data-[state=open]:bg-accent',
          summary && 'text-foreground',
        )}
        data-testid="chat-as"
      >
        <span className="shrink-0">Chat as</span>
        {summary && <span className="truncate font-mono">{summary}</span>}
      </PopoverTrigger>
      <PopoverContent side="top" className="w-72">
        {isNew ? <ChatAsForm labels={labels} onChange={onChange} disabled={disabled} /> : <KeptScope scoped={conversation} />}
      </PopoverContent>
    </Popover>
  )
}
