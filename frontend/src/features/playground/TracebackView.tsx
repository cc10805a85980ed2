// A Python traceback on an error card: the project's own frames first, then the whole traceback
// with each run of library frames folded (open one to see it), wrapped rather than scrolled.
import { useState } from 'react'
import { foldLibraryFrames, ownFrames, packageOf, parseTraceback, type Frame } from './traceback'

function shortFile(file: string): string {
  const site = file.replace(/\\/g, '/').split(/\/(?:site|dist)-packages\//)
  return site.length > 1 ? site[site.length - 1]! : file
}

function FrameLine({ frame }: { frame: Frame }) {
  return (
    <div data-testid={frame.library ? 'library-frame' : 'own-frame'}>
      <div className={frame.library ? 'text-muted-foreground' : undefined}>
        {shortFile(frame.file)}:{frame.line}
        {frame.func && <span className="text-muted-foreground"> in {frame.func}</span>}
      </div>
      {frame.code && <div className="pl-4 text-foreground/80">{frame.code}</div>}
    </div>
  )
}

function Folded({ frames }: { frames: Frame[] }) {
  const [open, setOpen] = useState(false)
  if (open) return <>{frames.map((frame, index) => <FrameLine key={index} frame={frame} />)}</>
  const packages = [...new Set(frames.map((frame) => packageOf(frame.file)))].slice(0, 4)
  return (
    <button type="button" onClick={() => setOpen(true)} className="cursor-pointer rounded bg-muted px-1 text-left text-muted-foreground hover:text-foreground" data-testid="folded-frames">
      … {frames.length} library frames ({packages.join(', ')})
    </button>
  )
}

export function TracebackView({ text }: { text: string }) {
  const lines = parseTraceback(text)
  const own = ownFrames(lines)
  return (
    <div className="space-y-2">
      {own.length > 0 && (
        <div className="rounded-md border bg-background/70 p-3 font-mono text-[11px] leading-relaxed break-words whitespace-pre-wrap" data-testid="own-frames">
          <p className="mb-1 font-sans text-[11px] font-medium text-muted-foreground">Your code</p>
          {own.map((frame, index) => <FrameLine key={index} frame={frame} />)}
        </div>
      )}
      <div className="max-h-80 overflow-y-auto rounded-md border bg-background/70 p-3 font-mono text-[11px] leading-relaxed break-words whitespace-pre-wrap" data-testid="traceback">
        {foldLibraryFrames(lines).map((line, index) =>
          line.kind === 'text' ? <div key={index}>{line.text}</div> : line.kind === 'frame' ? <FrameLine key={index} frame={line.frame} /> : <Folded key={index} frames={line.frames} />,
        )}
      </div>
    </div>
  )
}
