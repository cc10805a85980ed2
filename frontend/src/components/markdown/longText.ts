// Long model output made cheap to render. Two limits keep any answer fast, whatever its size:
//
// - A run of characters without a break (base64, minified JSON, a hash dump) longer than
//   MAX_RUN is taken out before the markdown parser sees it; a marker stands for it and becomes
//   its first RUN_HEAD characters, as plain text, and a "show all" button. The parser's emphasis
//   resolver is quadratic in the delimiters of one paragraph (`*` and `_` in minified JSON), so
//   a cut after parsing would be too late; and such a run is data, not prose.
// - The (cut) source is rendered as markdown in slices of at most MARKDOWN_SLICE characters,
//   split at block boundaries; the first one shows, the others on demand. Each slice parses on
//   its own, so a streaming answer re-parses only its last slice.

/** A run without a break longer than this is cut. */
export const MAX_RUN = 2000
/** The characters of a cut run shown before its button. */
export const RUN_HEAD = 300
/** The largest piece of markdown parsed at once. */
export const MARKDOWN_SLICE = 20_000

const OPEN = '\uE000'
const CLOSE = '\uE001'
// Unpredictable per page: a model cannot spell a marker with character references.
const NONCE = Math.random().toString(36).slice(2, 8).replace(/\d/g, 'x') || 'nonce'
const MARK = new RegExp(`${OPEN}${NONCE}(\\d+)${CLOSE}`, 'g')

export interface CutText {
  /** The text with a marker in place of every long run. */
  source: string
  /** The whole runs, by marker index. */
  runs: string[]
}

/** Where a line may break: whitespace, CJK and other wide scripts, and astral characters (emoji). */
function breaks(code: number): boolean {
  return code <= 0x20 || code >= 0x2e80
}

function marker(index: number): string {
  return `${OPEN}${NONCE}${index}${CLOSE}`
}

/** Take out every run of more than `maxRun` characters without a break (one linear pass). */
export function cutLongRuns(text: string, maxRun = MAX_RUN): CutText {
  // The marker characters are reserved: any in the text itself become U+FFFD.
  const clean = text.includes(OPEN) || text.includes(CLOSE) ? text.replace(/[\uE000\uE001]/g, '\uFFFD') : text
  if (clean.length <= maxRun) return { source: clean, runs: [] }
  const runs: string[] = []
  const pieces: string[] = []
  let copied = 0
  let start = 0
  for (let i = 0; i <= clean.length; i++) {
    if (i < clean.length && !breaks(clean.charCodeAt(i))) continue
    if (i - start > maxRun) {
      pieces.push(clean.slice(copied, start), marker(runs.length))
      runs.push(clean.slice(start, i))
      copied = i
    }
    start = i + 1
  }
  if (runs.length === 0) return { source: clean, runs }
  pieces.push(clean.slice(copied))
  return { source: pieces.join(''), runs }
}

/** Split `value` on markers: strings, and run indexes where a marker stood. */
export function splitOnMarkers(value: string): (string | number)[] {
  if (!value.includes(OPEN)) return [value]
  const out: (string | number)[] = []
  let last = 0
  for (const match of value.matchAll(MARK)) {
    if (match.index > last) out.push(value.slice(last, match.index))
    out.push(Number(match[1]))
    last = match.index + match[0].length
  }
  if (last < value.length) out.push(value.slice(last))
  return out
}

/** The original text of a piece of cut source: each marker replaced by its run. */
export function restoreRuns(source: string, runs: string[]): string {
  return source.replace(MARK, (_, index: string) => runs[Number(index)] ?? '')
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

interface Fence {
  /** The line that opened it, repeated at the top of the next slice. */
  line: string
  marker: string
}

/** Follow code fences through `text`: the fence still open at its end (or null). */
function fenceAfter(text: string, open: Fence | null): Fence | null {
  let fence = open
  for (const line of text.split('\n')) {
    const match = FENCE.exec(line)
    if (!match) continue
    const run = match[1]!
    if (!fence) fence = { line, marker: run }
    else if (run[0] === fence.marker[0] && run.length >= fence.marker.length && !match[2]!.trim()) fence = null
  }
  return fence
}

/** The best place to end a slice of `source` that starts at `start`: a block boundary if any. */
function sliceEnd(source: string, start: number, limit: number): number {
  const hard = start + limit
  if (hard >= source.length) return source.length
  const floor = start + Math.floor(limit / 2)
  // A blank line followed by an unindented line: indented text would become a code block.
  for (let i = source.lastIndexOf('\n\n', hard - 2); i >= floor; i = source.lastIndexOf('\n\n', i - 1)) {
    const next = source.charAt(i + 2)
    if (next !== ' ' && next !== '\t' && next !== '\n') return i + 2
  }
  const blank = source.lastIndexOf('\n\n', hard - 2)
  if (blank >= floor) return blank + 2
  const line = source.lastIndexOf('\n', hard - 1)
  if (line >= floor) return line + 1
  let end = hard
  while (end > floor && !breaks(source.charCodeAt(end - 1))) end--
  if (end === floor) end = hard
  // Never inside a marker or a surrogate pair.
  const open = source.lastIndexOf(OPEN, end - 1)
  if (open >= start && source.indexOf(CLOSE, open) >= end) end = open
  if (/[\uD800-\uDBFF]/.test(source.charAt(end - 1))) end--
  return Math.max(end, start + 1)
}

export interface Slices {
  /** Markdown pieces to render, each parsed on its own. */
  slices: string[]
  /** Where the source not yet shown starts (`source.length` when everything is shown). */
  rest: number
}

/**
 * The first `count` slices of `source`, each at most `limit` characters (plus the fence line
 * that reopens a code block cut in two), ending at block boundaries where there are any.
 */
export function sliceMarkdown(source: string, count: number, limit = MARKDOWN_SLICE): Slices {
  const slices: string[] = []
  let start = 0
  let fence: Fence | null = null
  while (start < source.length && slices.length < count) {
    const end = sliceEnd(source, start, limit)
    const piece = source.slice(start, end)
    slices.push(fence ? `${fence.line}\n${piece}` : piece)
    if (end < source.length) fence = fenceAfter(piece, fence)
    start = end
  }
  return { slices: slices.length ? slices : [''], rest: start }
}
