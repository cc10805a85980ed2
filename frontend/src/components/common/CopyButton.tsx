import { Check, Copy } from '@/components/icons'
import { useState } from 'react'
import { cn } from '@/lib/cn'

export function CopyButton({ text, className, label = 'Copy' }: { text: () => string; className?: string; label?: string }) {
  const [done, setDone] = useState(false)
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text())
      setDone(true)
      window.setTimeout(() => setDone(false), 1200)
    } catch {
      // Clipboard refused (not a secure context): nothing to do.
    }
  }
  return (
    <button
      type="button"
      onClick={copy}
      aria-label={done ? 'Copied' : label}
      title={done ? 'Copied' : label}
      className={cn('cursor-pointer rounded-md p-1 text-muted-foreground transition hover:bg-accent hover:text-foreground', className)}
    >
      {done ? <Check className="size-3.5 text-success" /> : <Copy className="size-3.5" />}
    </button>
  )
}
