import type { ReactNode } from 'react'

export function InfoSection({ title, children, count }: { title: string; children: ReactNode; count?: number }) {
  return (
    <section className="space-y-2">
      <h3 className="flex items-center gap-1.5 text-xs font-semibold">
        {title}
        {count !== undefined && <span className="font-mono font-normal text-muted-foreground">{count}</span>}
      </h3>
      {children}
    </section>
  )
}

export function KeyValues({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="divide-y rounded-md border text-xs">
      {rows.map(([key, value]) => (
        <div key={key} className="flex items-start justify-between gap-4 px-2.5 py-1.5">
          <dt className="shrink-0 text-muted-foreground">{key}</dt>
          <dd className="min-w-0 break-words text-right font-mono">{value}</dd>
        </div>
      ))}
    </dl>
  )
}
