// Try a question against one source: the chunks search ranks first for it, each with its score and
// where it came from, as an agent given this source would receive them.
import { Search } from '@/components/icons'
import { useState, type FormEvent } from 'react'
import { messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { box } from '@/features/rules/Field'
import { ragApi, type SearchAnswer } from './api'
import { ChunkText, CitationLine } from './ChunkView'

/** How many results to ask for: what was typed, kept within 1 to 100 (10 when it is not a number). */
export const resultsWanted = (typed: string): number => Math.max(1, Math.min(100, Math.round(Number(typed)) || 10))

export function QueryTester({ slug }: { slug: string }) {
  const [q, setQ] = useState('')
  const [k, setK] = useState('10')
  const [answer, setAnswer] = useState<SearchAnswer | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!q.trim()) return
    setBusy(true)
    setError(null)
    try {
      setAnswer(await ragApi.search([slug], q.trim(), resultsWanted(k)))
    } catch (cause) {
      setError(messageOf(cause))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section className="space-y-3" aria-label="Query tester">
      <h2 className="text-sm font-semibold">Query tester</h2>
      <form onSubmit={submit} className="flex flex-wrap items-center gap-2" role="search" aria-label="Search this source">
        <input value={q} onChange={(event) => setQ(event.target.value)} aria-label="Question" placeholder="A question an agent might search for" className={`${box} flex-1`} />
        <label className="flex items-center gap-1.5 text-xs text-muted-foreground">
          k
          <input
            type="number"
            min={1}
            max={100}
            value={k}
            onChange={(event) => setK(event.target.value)}
            aria-label="Results"
            className={`${box} w-20 font-mono`}
          />
        </label>
        <Button type="submit" size="sm" disabled={busy || !q.trim()}>
          <Search /> {busy ? 'Searching…' : 'Search'}
        </Button>
      </form>
      {error && (
        <p role="alert" className="text-sm text-destructive">
          {error}
        </p>
      )}
      {answer && (
        <div className="space-y-2">
          <p className="text-xs text-muted-foreground">
            {answer.results.length === 0 ? 'Nothing found.' : `${answer.results.length} ranked`} ·{' '}
            {answer.ranked_by === 'similarity' ? (
              <>
                by similarity, embedder <span className="font-mono">{answer.embedder}</span>
              </>
            ) : (
              'by the query words each holds (no embedder)'
            )}
          </p>
          <ol className="space-y-2">
            {answer.results.map((hit, rank) => (
              <li key={hit.chunk.id} className="flex gap-3 rounded-lg border bg-card px-3 py-2" data-testid="search-hit">
                <div className="w-14 shrink-0 text-right">
                  <p className="font-mono text-xs text-muted-foreground">#{rank + 1}</p>
                  <p className="font-mono text-xs font-medium" data-testid="search-score" title={String(hit.score)}>
                    {hit.score.toFixed(3)}
                  </p>
                </div>
                <div className="min-w-0 flex-1 space-y-1">
                  <CitationLine chunk={hit.chunk} />
                  <ChunkText text={hit.chunk.content} folded />
                </div>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  )
}
