// A disclosure: a button that shows and hides the region it controls.
import { ChevronRight } from '@/components/icons'
import { useId, useState, type ReactNode } from 'react'
import { cn } from '@/lib/cn'

export function Collapsible({
  label,
  children,
  defaultOpen = false,
  className,
  triggerClassName,
}: {
  label: ReactNode
  children: ReactNode
  defaultOpen?: boolean
  className?: string
  triggerClassName?: string
}) {
  const [open, setOpen] = useState(defaultOpen)
  const id = useId()
  return (
    <div className={className}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        className={cn('inline-flex cursor-pointer items-center gap-1 text-xs font-medium text-muted-foreground hover:text-foreground', triggerClassName)}
      >
        <ChevronRight className={cn('size-3.5 transition-transform', open && 'rotate-90')} />
        {label}
      </button>
      {open && (
        <div id={id} className="mt-2">
          {children}
        </div>
      )}
    </div>
  )
}
