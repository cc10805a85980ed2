// One kind of the registry: its table, "New", and per row Edit, Delete (confirmed), Test for a
// provider and Open for an agent. A new agent opens in the playground once created.
import { Database, MessageSquare, Pencil, Plus, Trash2, Zap } from '@/components/icons'
import { useState } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { registry, SANDBOXED, type Entry, type EntryKind } from '@/lib/api/registry'
import type { ConfiguredAgent, Provider } from '@/lib/api/types'
import { useRegistry } from '@/lib/queries'
import { invalidate } from '@/lib/resource'
import { EmptyState, ErrorState } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { agentPath } from '@/features/conversations/paths'
import { COLUMNS, type Column } from './columns'
import { EntryDialog } from './EntryDialog'
import { SINGULAR } from './form'
import { ProviderTestDialog } from './ProviderTest'

export function KindTab({ kind }: { kind: EntryKind }) {
  const navigate = useNavigate()
  const [params, setParams] = useSearchParams()
  const sandboxable = SANDBOXED.includes(kind)
  const sandboxes = sandboxable && params.get('sandbox') === 'include'
  const list = useRegistry(kind, sandboxes)
  // Held by key: the row shown is always the freshest copy (after a price is added, say).
  const [editing, setEditing] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<Entry | null>(null)
  const [testing, setTesting] = useState<Provider | null>(null)
  const [created, setCreated] = useState<Entry | null>(null)
  const rows: Entry[] = list.data ?? []
  const current = editing === '' ? null : (rows.find((row) => row.key === editing) ?? (created?.key === editing ? created : null))
  const columns = COLUMNS[kind] as Column<Entry>[]
  const what = SINGULAR[kind]

  const saved = (entry: Entry, created: boolean) => {
    if (created && kind === 'agents') navigate(agentPath((entry as ConfiguredAgent).slug))
    else if (created && kind === 'models') {
      setCreated(entry)
      setEditing(entry.key)
    } else setEditing(null)
  }
  const remove = async () => {
    if (!deleting) return
    await registry.remove(kind, deleting.key)
    invalidate('registry:')
    if (kind === 'agents') invalidate('agents')
  }
  const toggleSandboxes = (on: boolean) =>
    setParams(
      (was) => {
        const next = new URLSearchParams(was)
        if (on) next.set('sandbox', 'include')
        else next.delete('sandbox')
        return next
      },
      { replace: true },
    )

  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-3">
      <div className="flex flex-wrap items-center gap-3">
        <Button size="sm" onClick={() => setEditing('')}>
          <Plus /> New {what}
        </Button>
        {sandboxable && (
          <label className="flex items-center gap-2 text-[13px] text-muted-foreground">
            <input type="checkbox" className="size-3.5 accent-[var(--primary)]" checked={sandboxes} onChange={(event) => toggleSandboxes(event.target.checked)} />
            Show sandboxes
          </label>
        )}
      </div>
      {!list.data && list.error !== undefined && <ErrorState error={list.error} retry={list.reload} />}
      {!list.data && list.error === undefined && <Skeleton className="h-32" aria-label="Loading" />}
      {list.data && rows.length === 0 && (
        <EmptyState icon={<Database />} title={`No ${kind} yet`}>
          <p>Create one with New {what}.</p>
        </EmptyState>
      )}
      {rows.length > 0 && (
        <div className="rounded-lg border">
          {/* Stacked below `lg` (styles/index.css); `relative` keeps the hidden header label inside the table's scroller. */}
          <Table aria-label={kind} className="table-stack relative">
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                {columns.map((column, i) => (
                  <TableHead key={i}>{column.label}</TableHead>
                ))}
                <TableHead className="w-px">
                  <span className="sr-only">Actions</span>
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((row) => (
                <TableRow key={row.key} data-testid="registry-row" data-key={row.key}>
                  {columns.map((column, i) => (
                    <TableCell key={i} className={column.className} data-label={column.label || undefined}>
                      {column.cell(row)}
                    </TableCell>
                  ))}
                  <TableCell>
                    <div className="flex justify-end gap-0.5">
                      {kind === 'providers' && (
                        <Button variant="ghost" size="xs" onClick={() => setTesting(row as Provider)}>
                          <Zap /> Test
                        </Button>
                      )}
                      {kind === 'agents' && (
                        <Link to={agentPath((row as ConfiguredAgent).slug)} className="inline-flex h-6 items-center gap-1 rounded-md px-2 text-xs font-medium hover:bg-accent [&_svg]:size-3.5">
                          <MessageSquare /> Open
                        </Link>
                      )}
                      <Button variant="ghost" size="icon-sm" aria-label={`Edit ${row.key}`} onClick={() => setEditing(row.key)}>
                        <Pencil />
                      </Button>
                      <Button variant="ghost" size="icon-sm" aria-label={`Delete ${row.key}`} className="hover:text-destructive" onClick={() => setDeleting(row)}>
                        <Trash2 />
                      </Button>
                    </div>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </div>
      )}
      <EntryDialog kind={kind} entry={current} open={editing === '' || current !== null} onOpenChange={(open) => !open && setEditing(null)} onSaved={saved} />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete ${what} ${deleting?.key ?? ''}?`}
        description={`Anything that names this ${what} stops finding it.`}
        confirmLabel="Delete"
        onConfirm={remove}
      />
      {kind === 'providers' && <ProviderTestDialog provider={testing} onClose={() => setTesting(null)} />}
    </div>
  )
}
