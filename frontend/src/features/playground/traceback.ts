// A Python traceback split into frames, so an error card can show the developer's own frames first
// and fold the library frames (pydantic-ai, httpx, asyncio...) that make up most of a long one.

export interface Frame {
  /** `File "…", line N, in name` as printed. */
  location: string
  /** The source line under it, when printed. */
  code: string | null
  file: string
  line: number | null
  func: string | null
  library: boolean
}

export type TracebackLine = { kind: 'text'; text: string } | { kind: 'frame'; frame: Frame }

const FRAME = /^\s*File "([^"]+)", line (\d+)(?:, in (.+))?$/
const LIBRARY = /(\/site-packages\/|\/dist-packages\/|\/lib\/python3[^/]*\/|\/synapse_agents\/|^<frozen |^<string>$)/

/** Whether `file` belongs to an installed library, Synapse or Python itself rather than to the project. */
export function isLibraryFile(file: string): boolean {
  return LIBRARY.test(file.replace(/\\/g, '/'))
}

/** The traceback as text lines and frames, in order. */
export function parseTraceback(text: string): TracebackLine[] {
  const lines = text.replace(/\n$/, '').split('\n')
  const out: TracebackLine[] = []
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    const match = FRAME.exec(line)
    if (!match) {
      out.push({ kind: 'text', text: line })
      continue
    }
    const next = lines[index + 1]
    const hasCode = next !== undefined && /^\s{4,}\S/.test(next) && !FRAME.test(next)
    const file = match[1]!
    out.push({
      kind: 'frame',
      frame: {
        location: line.trim(),
        code: hasCode ? next!.trim() : null,
        file,
        line: Number(match[2]),
        func: match[3] ?? null,
        library: isLibraryFile(file),
      },
    })
    if (hasCode) {
      index++
      // The carets (^^^^) some Python versions print under the code line belong to it.
      while (lines[index + 1] !== undefined && /^\s+[~^]+\s*$/.test(lines[index + 1]!)) index++
    }
  }
  return out
}

/** The project's own frames (not a library's), innermost last, as the traceback lists them. */
export function ownFrames(lines: TracebackLine[]): Frame[] {
  return lines.flatMap((line) => (line.kind === 'frame' && !line.frame.library ? [line.frame] : []))
}

export type FoldedLine = TracebackLine | { kind: 'folded'; frames: Frame[] }

/** The lines with each run of two or more consecutive library frames folded into one entry. */
export function foldLibraryFrames(lines: TracebackLine[]): FoldedLine[] {
  const out: FoldedLine[] = []
  let run: Frame[] = []
  const flush = () => {
    if (run.length >= 2) out.push({ kind: 'folded', frames: run })
    else out.push(...run.map((frame): TracebackLine => ({ kind: 'frame', frame })))
    run = []
  }
  for (const line of lines) {
    if (line.kind === 'frame' && line.frame.library) {
      run.push(line.frame)
      continue
    }
    flush()
    out.push(line)
  }
  flush()
  return out
}

/** The package a library frame belongs to: `pydantic_ai`, `synapse_agents`, `python` (the standard library). */
export function packageOf(file: string): string {
  const path = file.replace(/\\/g, '/')
  const site = path.split(/\/(?:site|dist)-packages\//)
  if (site.length > 1) return site[site.length - 1]!.split('/')[0]!
  if (path.includes('/synapse_agents/')) return 'synapse_agents'
  if (/\/lib\/python3[^/]*\//.test(path) || path.startsWith('<frozen')) return 'python'
  return path.split('/').filter(Boolean).slice(-2, -1)[0] ?? path
}
