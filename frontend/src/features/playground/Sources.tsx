import { safeUrl } from '@/components/markdown/Markdown'

/** Links the model cited (`source-url` chunks), kept only when they are safe to follow. */
export function Sources({ sources }: { sources: { url: string; title: string | null }[] }) {
  const safe = sources.filter((source) => /^https?:/i.test(safeUrl(source.url)))
  if (safe.length === 0) return null
  return (
    <div className="space-y-1" data-testid="sources">
      <p className="text-[11px] font-medium uppercase tracking-wider text-muted-foreground">Sources</p>
      <ol className="flex flex-wrap gap-1.5">
        {safe.map((source, i) => (
          <li key={source.url}>
            <a
              href={source.url}
              target="_blank"
              rel="noopener noreferrer"
              className="inline-flex max-w-72 items-center gap-1 truncate rounded-md border bg-muted/40 px-2 py-0.5 text-xs hover:bg-accent"
              title={source.url}
            >
              <span className="font-mono text-muted-foreground">{i + 1}</span>
              <span className="truncate">{source.title || new URL(source.url).hostname}</span>
            </a>
          </li>
        ))}
      </ol>
    </div>
  )
}
