// The sidebar over the content on a phone or a tablet, on the platform's modal <dialog>: the page
// behind is inert, Esc and a click on the backdrop close it, and so does following a link in it.
// Focus moves to the current page's link when it opens and back to the opener when it closes.
import { useEffect, useRef, type ReactNode } from 'react'

export const DRAWER_ID = 'sidebar-drawer'

export function SidebarDrawer({ open, onClose, children }: { open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null)
  const opener = useRef<HTMLElement | null>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.hasAttribute('open')) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null
      // Without the modal API (jsdom), the open attribute still shows it and its contents.
      if (dialog.showModal) dialog.showModal()
      else dialog.setAttribute('open', '')
      const link = dialog.querySelector<HTMLElement>('nav a[aria-current="page"]') ?? dialog.querySelector<HTMLElement>('nav a')
      link?.focus()
    }
    if (!open && dialog.hasAttribute('open')) {
      if (dialog.close) dialog.close()
      else dialog.removeAttribute('open')
      if (opener.current?.isConnected) opener.current.focus()
      opener.current = null
    }
  }, [open])
  return (
    <dialog
      ref={ref}
      id={DRAWER_ID}
      aria-label="Navigation"
      data-testid="sidebar-drawer"
      // React passes a nested dialog's cancel and close up to this one: only its own count.
      onCancel={(event) => {
        if (event.target !== event.currentTarget) return
        event.preventDefault()
        onClose()
      }}
      onClose={(event) => event.target === event.currentTarget && open && onClose()}
      // A press on the backdrop lands on the dialog itself: its content fills the whole box.
      onMouseDown={(event) => event.target === ref.current && onClose()}
      onClick={(event) => {
        if (event.target instanceof Element && event.target.closest('a[href]')) onClose()
      }}
      className="fixed inset-y-0 left-0 right-auto m-0 h-dvh max-h-none w-64 max-w-[85vw] border-0 bg-surface p-0 text-foreground shadow-2xl backdrop:bg-black/55 open:animate-drawer"
    >
      {open && children}
    </dialog>
  )
}
