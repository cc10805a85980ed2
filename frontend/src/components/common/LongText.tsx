// Plain text that may be huge (streamed tool arguments, reasoning, error messages): the first
// `limit` characters, and a button for the rest. Rendered as React text, never as HTML.
import { useState } from 'react'
import { formatBytes } from '@/lib/format'

/** `text`, cut after `limit` characters until "show all" is pressed. */
export function LongText({ text, limit = 5000 }: { text: string; limit?: number }) {
  const [full, setFull] = useState(false)
  if (full || text.length <= limit) return <>{text}</>
  return (
    <>
      {text.slice(0, limit)}…
      <button
        type="button"
        onClick={() => setFull(true)}
        className="mx-1 cursor-pointer rounded bg-muted px-1.5 font-sans not-italic text-muted-foreground hover:text-foreground"
      >
        show all {formatBytes(text.length)}
      </button>
    </>
  )
}
