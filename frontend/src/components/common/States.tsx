// The designed loading, empty and error states every page reuses.
import { AlertTriangle, RotateCw } from '@/components/icons'
import type { ReactNode } from 'react'
import { ApiError } from '@/lib/api/client'
import { cn } from '@/lib/cn'
import { Button } from '@/components/ui/button'

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === 'string' ? error : 'Something went wrong.'
}

export function ErrorState({ error, retry, className }: { error: unknown; retry?: () => void; className?: string }) {
  const notFound = error instanceof ApiError && error.status === 404
  return (
    <div role="alert" className={cn('mx-auto flex max-w-md flex-col items-center gap-3 px-6 py-16 text-center', className)}>
      <div className="flex size-10 items-center justify-center rounded-full bg-destructive/10 text-destructive">
        <AlertTriangle className="size-5" />
      </div>
      <div className="space-y-1">
        <p className="font-medium">{notFound ? 'Not found' : 'Could not load this'}</p>
        <p className="text-sm text-muted-foreground">{messageOf(error)}</p>
      </div>
      {retry && !notFound && (
        <Button variant="outline" size="sm" onClick={retry}>
          <RotateCw /> Try again
        </Button>
      )}
    </div>
  )
}

export function EmptyState({ icon, title, children, className }: { icon: ReactNode; title: string; children?: ReactNode; className?: string }) {
  return (
    <div className={cn('mx-auto flex max-w-lg flex-col items-center gap-3 px-6 py-16 text-center', className)}>
      <div className="flex size-11 items-center justify-center rounded-xl border bg-card text-muted-foreground [&_svg]:size-5">{icon}</div>
      <p className="font-medium">{title}</p>
      {children && <div className="space-y-2 text-sm text-muted-foreground">{children}</div>}
    </div>
  )
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="flex flex-wrap items-end justify-between gap-3 border-b px-6 py-5">
      <div className="min-w-0 space-y-1">
        <h1 className="text-lg font-semibold tracking-tight">{title}</h1>
        {description && <p className="text-sm text-muted-foreground">{description}</p>}
      </div>
      {actions && <div className="flex items-center gap-2">{actions}</div>}
    </header>
  )
}
