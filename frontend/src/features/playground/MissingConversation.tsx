// In place of the composer when the conversation in the URL does not exist: nothing can be sent
// to it, so the way on is a new conversation with the same agent.
import { Plus } from '@/components/icons'
import { Button } from '@/components/ui/button'

export function MissingConversation({ agentName, onStartNew }: { agentName: string | undefined; onStartNew: () => void }) {
  return (
    <div className="shrink-0 px-3 pb-3 pt-2 sm:px-6 sm:pb-5">
      <div
        role="region"
        aria-label="Conversation not found"
        className="mx-auto flex w-full max-w-3xl flex-wrap items-center justify-between gap-3 rounded-xl border border-dashed bg-card px-4 py-3"
        data-testid="missing-conversation"
      >
        <p className="text-sm text-muted-foreground">This conversation does not exist, so no message can be sent to it.</p>
        <Button size="sm" onClick={onStartNew} autoFocus>
          <Plus /> {agentName ? `Start a new conversation with ${agentName}` : 'Start a new conversation'}
        </Button>
      </div>
    </div>
  )
}
