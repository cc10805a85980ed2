import { Sparkles } from '@/components/icons'
import type { AgentInfo } from '@/lib/api/types'

export function PlaygroundEmpty({ agent }: { agent: AgentInfo | undefined }) {
  return (
    <div className="flex flex-col items-center gap-3 py-20 text-center" data-testid="playground-empty">
      <div className="flex size-11 items-center justify-center rounded-xl border bg-card text-primary">
        <Sparkles className="size-5" />
      </div>
      <p className="font-medium">{agent ? `Chat with ${agent.name}` : 'Start a conversation'}</p>
      {agent?.description && <p className="max-w-md text-sm text-muted-foreground">{agent.description}</p>}
      <p className="text-xs text-muted-foreground">
        Every tool call, thought, token and error of the run shows up here as it happens. Drop files anywhere to attach them.
      </p>
    </div>
  )
}
