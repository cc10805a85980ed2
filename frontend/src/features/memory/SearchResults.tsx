// A search's answer: how it was ranked (by similarity through the embedder, or by recency without
// one), then each result with its rank, its score and whom it applies to.
import { Badge } from '@/components/ui/badge'
import type { SearchAnswer } from './api'
import { formatScore } from './labels'
import { MemoryRow } from './MemoryRow'

function Ranking({ answer }: { answer: SearchAnswer }) {
  return (
    <p className="text-xs text-muted-foreground" data-testid="memory-search-ranking">
      {answer.ranked_by === 'similarity' ? (
        <>
          Ranked by similarity{answer.embedder && <> (embedder <span className="font-mono text-foreground/85">{answer.embedder}</span>)</>}.
        </>
      ) : (
        <>Ranked by recency, newest first{answer.embedder === null ? ': no embedder is set' : ''}.</>
      )}
    </p>
  )
}

export function SearchResults({ answer }: { answer: SearchAnswer }) {
  return (
    <div className="grid gap-2">
      <Ranking answer={answer} />
      {answer.results.length === 0 ? (
        <p className="text-sm text-muted-foreground" data-testid="memory-search-none">
          No memory matches.
        </p>
      ) : (
        <ol className="space-y-2" aria-label="Search results">
          {answer.results.map(({ memory, score, applies_to_everyone: everyone }, index) => (
            <MemoryRow
              key={memory.id}
              memory={memory}
              testId="memory-search-result"
              extra={
                <>
                  <span className="font-medium text-muted-foreground">#{index + 1}</span>
                  <Badge variant="mono" data-testid="memory-score">
                    {formatScore(score)}
                  </Badge>
                  <Badge variant={everyone ? 'secondary' : 'default'} data-testid="memory-axis">
                    {everyone ? 'Applies to everyone' : `Only to ${memory.applies_to ?? 'this person'}`}
                  </Badge>
                </>
              }
            />
          ))}
        </ol>
      )}
    </div>
  )
}
