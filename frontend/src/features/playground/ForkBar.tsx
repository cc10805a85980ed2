// Under the playground's header: where this conversation was forked from, and the forks made of
// it, each with a link to the side-by-side comparison.
import { Columns2, GitFork } from '@/components/icons'
import { Link } from 'react-router'
import type { ThreadConversation } from '@/lib/api/types'
import { formatRelative } from '@/lib/format'
import { comparePath, conversationPath } from '@/features/conversations/paths'

const compareLink = 'inline-flex items-center gap-1 text-primary hover:underline [&_svg]:size-3'

export function ForkBar({ conversation }: { conversation: ThreadConversation | undefined }) {
  const source = conversation?.forked_from ?? null
  const forks = conversation?.forks ?? []
  if (!conversation || (!source && forks.length === 0)) return null
  const slug = conversation.agent_key
  return (
    <div className="flex shrink-0 flex-col gap-1 border-b bg-muted/30 px-4 py-1.5 text-xs text-muted-foreground">
      {source && (
        <p className="flex min-w-0 flex-wrap items-center gap-x-1.5" data-testid="forked-from">
          <GitFork className="size-3.5 shrink-0" />
          {source.title === null ? (
            <span>Forked from a conversation that was deleted</span>
          ) : (
            <>
              <span>Forked from</span>{' '}
              <Link to={conversationPath(slug, source.id)} className="max-w-72 truncate font-medium text-foreground hover:underline">
                {source.title || 'Untitled'}
              </Link>{' '}
              <span aria-hidden>·</span>{' '}
              <Link to={comparePath(source.id, conversation.id)} className={compareLink}>
                <Columns2 /> Compare
              </Link>
            </>
          )}
        </p>
      )}
      {forks.length > 0 && (
        <div className="flex max-h-16 min-w-0 flex-wrap items-center gap-x-3 gap-y-0.5 overflow-y-auto" data-testid="forks">
          <span className="flex items-center gap-1.5">
            <GitFork className="size-3.5 shrink-0" />
            {forks.length === 1 ? '1 fork' : `${forks.length} forks`}:
          </span>{' '}
          <ul className="contents">
            {forks.map((fork) => (
              <li key={fork.id} className="flex min-w-0 items-center gap-1.5" data-testid="fork">
                <Link to={conversationPath(slug, fork.id)} className="max-w-56 truncate text-foreground hover:underline">
                  {fork.title || 'Untitled'}
                </Link>{' '}
                <span className="font-mono text-[11px]" title={fork.created_at}>
                  {formatRelative(fork.created_at)}
                </span>{' '}
                <Link to={comparePath(conversation.id, fork.id)} className={compareLink} aria-label={`Compare with ${fork.title || 'the fork'}`}>
                  <Columns2 /> Compare
                </Link>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}
