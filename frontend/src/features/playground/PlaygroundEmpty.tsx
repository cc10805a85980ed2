import { Sparkles } from '@/components/icons'
import type { AgentInfo } from '@/lib/api/types'

/**
 * The empty playground: what the agent is for, and what to try (its `synapse.suggestions`), each a
 * button that sends the message. `onSuggest` is absent while a message cannot be sent.
 */
export function PlaygroundEmpty({ agent, onSuggest }: { agent: AgentInfo | undefined; onSuggest?: (message: string) => void }) {
  const suggestions = agent?.suggestions ?? []
  return (
    <div className="flex flex-col items-center gap-3 py-20 text-center" data-testid="playground-empty">
      <div className="flex size-11 items-center justify-center rounded-xl border bg-card text-primary">
        <Sparkles className="size-5" />
      </div>
      <p className="font-medium">{agent ? `Chat with ${agent.label ?? agent.name}` : 'Start a conversation'}</p>
      {agent?.description && <p className="max-w-md text-sm text-muted-foreground">{agent.description}</p>}
      {suggestions.length > 0 && (
        <div className="flex max-w-xl flex-wrap justify-center gap-2 pt-1" aria-label="Things to try" role="group" data-testid="suggestions">
          {suggestions.map((text) => (
            <button
              key={text}
              type="button"
              disabled={!onSuggest}
              onClick={() => onSuggest?.(text)}
              className="cursor-pointer rounded-full border bg-card px-3 py-1 text-left text-xs hover:border-primary/50 hover:bg-accent disabled:cursor-not-allowed disabled:opacity-60"
            >
              {text}
            </button>
          ))}
        </div>
      )}
      <p className="text-xs text-muted-foreground">
        Every tool call, thought, token and error of the run shows up here as it happens. Drop files anywhere to attach them.
      </p>
    </div>
  )
}
