// Where a History search matched: the API's excerpt with each match in <mark>, built as elements
// from the match offsets (Unicode code points), so the text is never parsed as markup.
import type { ReactNode } from 'react'

export type Match = readonly [number, number]

/** The snippet cut into plain and marked parts; offsets out of range or overlapping are ignored. */
export function snippetParts(text: string, matches: readonly Match[]): { text: string; marked: boolean }[] {
  const points = Array.from(text)
  const parts: { text: string; marked: boolean }[] = []
  let at = 0
  for (const [start, end] of [...matches].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start || end > points.length) continue
    if (start > at) parts.push({ text: points.slice(at, start).join(''), marked: false })
    parts.push({ text: points.slice(start, end).join(''), marked: true })
    at = end
  }
  if (at < points.length) parts.push({ text: points.slice(at).join(''), marked: false })
  return parts
}

/**
 * The snippet with at most `lead` characters before its first match (the cut marked with "…") and
 * the offsets moved with it, so the match is in view even in a narrow column.
 */
export function leadingUpTo(text: string, matches: readonly Match[], lead: number): { text: string; matches: Match[] } {
  const first = Math.min(...matches.map(([start]) => start))
  if (!Number.isFinite(first) || first <= lead) return { text, matches: [...matches] }
  const points = Array.from(text)
  const cut = first - lead
  return { text: `…${points.slice(cut).join('')}`, matches: matches.map(([start, end]) => [start - cut + 1, end - cut + 1] as const) }
}

export function SearchSnippet({
  text,
  matches,
  className,
  lead,
}: {
  text: string
  matches: readonly Match[]
  className?: string
  /** Keep at most this many characters before the first match. */
  lead?: number
}) {
  const shown = lead === undefined ? { text, matches } : leadingUpTo(text, matches, lead)
  const children: ReactNode[] = snippetParts(shown.text, shown.matches).map((part, index) =>
    part.marked ? (
      <mark key={index} className="rounded-sm bg-warning/25 text-foreground">
        {part.text}
      </mark>
    ) : (
      part.text
    ),
  )
  return (
    <span className={className} data-testid="search-snippet" title={text}>
      {children}
    </span>
  )
}
