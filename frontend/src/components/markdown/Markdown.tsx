// Markdown from models and agent instructions. The text is untrusted: raw HTML is dropped, only
// http(s), mailto and in-page links survive, links open in a new tab without an opener, and
// images are shown as links (a model's markdown never makes the browser fetch anything).
// Long output stays fast (see longText.ts): long unbroken runs are cut with a "show all" button,
// and only the first slice of a very long answer is parsed until more is asked for.
import { createContext, memo, useContext, useMemo, useState } from 'react'
import ReactMarkdown, { defaultUrlTransform, type Components } from 'react-markdown'
import type { Element, ElementContent, Root, RootContent } from 'hast'
import { cn } from '@/lib/cn'
import { formatBytes } from '@/lib/format'
import { useThrottled } from '@/lib/useThrottled'
import { RUN_HEAD, cutLongRuns, restoreRuns, sliceMarkdown, splitOnMarkers } from './longText'

const SAFE = /^(https?:|mailto:|#|\/(?!\/))/i
/** How often a streaming answer is re-rendered. */
const STREAM_INTERVAL_MS = 120
const CUT_TAG = 'synapse-cut'

/** Keep a URL only when it is http(s), mailto, a fragment or a same-site path. */
export function safeUrl(url: string): string {
  const cleaned = defaultUrlTransform(url)
  return cleaned && SAFE.test(cleaned.trim()) ? cleaned : ''
}

/** The whole runs of the answer being rendered, for the cut buttons inside its markdown. */
const Runs = createContext<string[]>([])

/** Replace the markers in text nodes (code included) with cut elements. */
function rehypeCuts() {
  const visit = (node: Root | Element) => {
    let changed = false
    const children: (RootContent | ElementContent)[] = []
    for (const child of node.children) {
      if (child.type === 'element') visit(child)
      if (child.type !== 'text') {
        children.push(child)
        continue
      }
      const pieces = splitOnMarkers(child.value)
      if (pieces.length === 1 && typeof pieces[0] === 'string') {
        children.push(child)
        continue
      }
      changed = true
      for (const piece of pieces)
        children.push(
          typeof piece === 'string'
            ? { type: 'text', value: piece }
            : { type: 'element', tagName: CUT_TAG, properties: { dataRun: piece }, children: [] },
        )
    }
    if (changed) node.children = children as typeof node.children
  }
  return (tree: Root) => visit(tree)
}

/** A cut run, as plain text: its head and a button until asked for, then all of it, wrapping anywhere. */
function CutRun({ index }: { index: number }) {
  const run = useContext(Runs)[index] ?? ''
  const [open, setOpen] = useState(false)
  const button = 'mx-1 cursor-pointer rounded bg-muted px-1.5 font-sans text-[0.85em] text-muted-foreground not-italic hover:text-foreground'
  if (!open)
    return (
      <>
        <span className="break-all">{run.slice(0, RUN_HEAD)}</span>…
        <button type="button" className={button} onClick={() => setOpen(true)} data-testid="show-run">
          show all {formatBytes(run.length)}
        </button>
      </>
    )
  return (
    <>
      <span className="whitespace-pre-wrap break-all" data-testid="long-run">
        {run}
      </span>
      <button type="button" className={button} onClick={() => setOpen(false)}>
        show less
      </button>
    </>
  )
}

const components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  img: ({ src, alt }) =>
    typeof src === 'string' && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer">
        {alt || src}
      </a>
    ) : (
      <span>{alt}</span>
    ),
  [CUT_TAG]: ({ node }: { node?: Element }) => <CutRun index={Number(node?.properties?.dataRun ?? -1)} />,
} as Components

const plugins = [rehypeCuts]

/** One slice, parsed on its own: unchanged slices of a growing answer are not parsed again. */
const Slice = memo(function Slice({ source }: { source: string }) {
  return (
    <ReactMarkdown skipHtml urlTransform={safeUrl} components={components} rehypePlugins={plugins}>
      {source}
    </ReactMarkdown>
  )
})

function More({ hidden, onMore, onAll }: { hidden: number; onMore: () => void; onAll: () => void }) {
  const button = 'cursor-pointer rounded-md border bg-card px-2 py-0.5 text-xs text-foreground hover:bg-accent'
  return (
    <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-muted-foreground" data-testid="more-output">
      <span>{formatBytes(hidden)} more not shown.</span>
      <button type="button" className={button} onClick={onMore}>
        Show more
      </button>
      <button type="button" className={button} onClick={onAll}>
        Show all as text
      </button>
    </div>
  )
}

export const Markdown = memo(function Markdown({
  text,
  className,
  streaming = false,
}: {
  text: string
  className?: string
  /** While true, the text is re-rendered at most every STREAM_INTERVAL_MS. */
  streaming?: boolean
}) {
  const shown = useThrottled(text, streaming ? STREAM_INTERVAL_MS : 0)
  const cut = useMemo(() => cutLongRuns(shown), [shown])
  const [count, setCount] = useState(1)
  const [plain, setPlain] = useState(false)
  const { slices, rest } = useMemo(() => sliceMarkdown(cut.source, count), [cut.source, count])
  const restText = useMemo(() => (rest < cut.source.length ? restoreRuns(cut.source.slice(rest), cut.runs) : ''), [cut, rest])
  return (
    <div className={cn('prose-synapse', className)}>
      <Runs.Provider value={cut.runs}>
        {slices.map((source, index) => (
          <Slice key={index} source={source} />
        ))}
      </Runs.Provider>
      {restText &&
        (plain ? (
          <div className="whitespace-pre-wrap break-words" data-testid="plain-rest">
            {restText}
          </div>
        ) : (
          <More hidden={restText.length} onMore={() => setCount(count + 1)} onAll={() => setPlain(true)} />
        ))}
    </div>
  )
})
