// Dialogs on the platform's own modal: <dialog>.showModal() puts it in the top layer, makes the
// rest of the page inert, traps focus, closes on Esc and gives focus back. No library needed.
import { X } from '@/components/icons'
import { useEffect, useRef, type ComponentProps, type ReactNode } from 'react'
import { cn } from '@/lib/cn'

export function Dialog({
  open,
  onOpenChange,
  children,
  className,
  role,
  label,
}: {
  open: boolean
  onOpenChange: (open: boolean) => void
  children: ReactNode
  className?: string
  role?: 'dialog' | 'alertdialog'
  label?: string
}) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    // Without the modal API (jsdom), an open attribute still shows it and its contents.
    if (open && !dialog.open) {
      if (dialog.showModal) dialog.showModal()
      else dialog.setAttribute('open', '')
    }
    if (!open && dialog.hasAttribute('open')) {
      if (dialog.close) dialog.close()
      else dialog.removeAttribute('open')
    }
  }, [open])
  return (
    <dialog
      ref={ref}
      role={role}
      aria-label={label}
      onClose={() => open && onOpenChange(false)}
      onCancel={(event) => {
        event.preventDefault()
        onOpenChange(false)
      }}
      onMouseDown={(event) => event.target === ref.current && onOpenChange(false)}
      className={cn(
        'm-auto w-[calc(100%-2rem)] max-w-md rounded-xl border bg-popover p-0 text-popover-foreground shadow-2xl backdrop:bg-black/55 open:animate-in',
        className,
      )}
    >
      {open && (
        <div className="relative grid gap-4 p-5">
          {children}
          <button
            type="button"
            onClick={() => onOpenChange(false)}
            className="absolute right-3 top-3 cursor-pointer rounded-md p-1 text-muted-foreground hover:bg-accent hover:text-foreground"
            aria-label="Close"
          >
            <X className="size-4" />
          </button>
        </div>
      )}
    </dialog>
  )
}

export function DialogHeader({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cn('flex flex-col gap-1.5 pr-6', className)} {...props} />
}

export function DialogFooter({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cn('flex justify-end gap-2', className)} {...props} />
}

export function DialogTitle({ className, ...props }: ComponentProps<'h2'>) {
  return <h2 className={cn('text-base font-semibold', className)} {...props} />
}

export function DialogDescription({ className, ...props }: ComponentProps<'p'>) {
  return <p className={cn('text-sm text-muted-foreground', className)} {...props} />
}
