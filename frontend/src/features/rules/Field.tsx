// A labelled field with its note below: the server's error when it refused the value, else a hint.
import { useId, type ReactNode } from 'react'
import { cn } from '@/lib/cn'

export const box = 'h-9 w-full min-w-0 rounded-md border border-input bg-transparent px-3 text-sm focus-visible:outline-2 focus-visible:outline-ring'

export interface Aria {
  id: string
  'aria-invalid'?: true
  'aria-describedby'?: string
}

export function Field({ label, error, hint, className, children }: { label: string; error?: string; hint?: string; className?: string; children: (aria: Aria) => ReactNode }) {
  const id = useId()
  const note = error ?? hint
  const aria: Aria = { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': note ? `${id}-note` : undefined }
  return (
    <div className={cn('grid min-w-0 content-start gap-1.5', className)}>
      <label htmlFor={id} className="text-[13px] font-medium">
        {label}
      </label>
      {children(aria)}
      {note && (
        <p id={`${id}-note`} className={cn('text-xs', error ? 'text-destructive' : 'text-muted-foreground')}>
          {note}
        </p>
      )}
    </div>
  )
}
