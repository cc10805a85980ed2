import { useState } from 'react'
import type { JsonSchema } from '@/lib/api/types'
import { paramRows } from '@/lib/schema'
import { cn } from '@/lib/cn'
import { JsonView } from '@/components/json/JsonView'

function TypeBadge({ type }: { type: string }) {
  return <span className="shrink-0 rounded border bg-muted/60 px-1.5 py-px font-mono text-[11px] text-muted-foreground">{type}</span>
}

/** Parameters as rows (name, type badge, required mark, description), with the raw schema a click away. */
export function ParamTable({ schema, required, label = 'Parameters' }: { schema: JsonSchema | null; required?: string[]; label?: string }) {
  const [raw, setRaw] = useState(false)
  const rows = paramRows(schema, required)
  return (
    <div className="space-y-1.5">
      <div className="flex items-center justify-between">
        <span className="text-[11px] font-medium uppercase tracking-wider text-muted-foreground">{label}</span>
        <button type="button" onClick={() => setRaw(!raw)} aria-pressed={raw} className="cursor-pointer rounded px-1 text-[11px] text-muted-foreground hover:text-foreground">
          {raw ? 'Table' : 'Raw schema'}
        </button>
      </div>
      {raw ? (
        <JsonView value={schema} openDepth={3} />
      ) : rows.length === 0 ? (
        <p className="text-xs text-muted-foreground">No parameters.</p>
      ) : (
        <ul className="divide-y rounded-md border" aria-label={label}>
          {rows.map((row) => (
            <li key={row.name} className="space-y-0.5 px-2.5 py-1.5" style={{ paddingLeft: `${0.625 + row.depth * 0.9}rem` }} data-testid="param-row">
              <div className="flex items-center gap-2">
                <span className={cn('min-w-0 flex-1 truncate font-mono text-xs', row.depth > 0 && 'text-muted-foreground')}>
                  {row.name}
                  {row.required && (
                    <span className="ml-0.5 text-destructive" title="Required" aria-label="required">
                      *
                    </span>
                  )}
                </span>
                <TypeBadge type={row.type} />
              </div>
              {row.description && <p className="text-xs text-muted-foreground">{row.description}</p>}
              {(row.values || row.defaultValue) && (
                <p className="font-mono text-[11px] text-muted-foreground">
                  {row.values?.join(' | ')}
                  {row.values && row.defaultValue && ' · '}
                  {row.defaultValue && `default ${row.defaultValue}`}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
