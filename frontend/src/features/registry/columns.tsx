// What each registry table shows of an entry, column by column.
import type { ReactNode } from 'react'
import type { EntryKind, EntryOf } from '@/lib/api/registry'
import { Badge } from '@/components/ui/badge'
import { formatPrice } from './price'
import { secretLabel } from './SecretField'

export interface Column<E> {
  label: string
  cell: (entry: E) => ReactNode
  className?: string
}

const mono = (text: ReactNode) => <span className="font-mono text-xs">{text}</span>
const plain = (text: ReactNode) => <span className="text-[13px]">{text}</span>
const muted = (text: ReactNode) => <span className="text-[13px] text-muted-foreground">{text ?? '—'}</span>
const optional = (value: number | null) => muted(value === null ? '—' : String(value))
// Nothing at all when enabled and not a sandbox: a stacked row on a phone then skips the cell.
const state = (enabled: boolean, sandbox = false) =>
  enabled && !sandbox ? null : (
    <span className="flex gap-1">
      {!enabled && <Badge variant="outline">disabled</Badge>}
      {sandbox && <Badge variant="warning">sandbox</Badge>}
    </span>
  )

export const COLUMNS: { [K in EntryKind]: Column<EntryOf[K]>[] } = {
  providers: [
    { label: 'Key', cell: (p) => mono(p.key) },
    { label: 'Kind', cell: (p) => <Badge variant="secondary">{p.kind}</Badge> },
    { label: 'Base URL', cell: (p) => muted(p.base_url), className: 'max-w-56 truncate' },
    {
      label: 'API key',
      cell: (p) => (
        <span className={p.secret_set ? 'font-mono text-xs' : 'text-xs text-muted-foreground'} data-testid="secret-status">
          {secretLabel(p.secret_set, p.secret_last4)}
        </span>
      ),
    },
    { label: '', cell: (p) => state(p.enabled) },
  ],
  models: [
    { label: 'Key', cell: (m) => mono(m.key) },
    { label: 'Provider', cell: (m) => muted(m.provider_key) },
    { label: 'Label', cell: (m) => muted(m.label || m.name) },
    { label: 'Price', cell: (m) => <span className={m.price ? 'font-mono text-xs' : 'text-xs text-muted-foreground'}>{formatPrice(m.price)}</span> },
    { label: '', cell: (m) => state(m.enabled) },
  ],
  presets: [
    { label: 'Key', cell: (p) => mono(p.key) },
    { label: 'Name', cell: (p) => (p.name ? plain(p.name) : muted('—')) },
    { label: 'Model', cell: (p) => mono(p.model) },
    { label: 'Temperature', cell: (p) => optional(p.temperature) },
    { label: 'Max tokens', cell: (p) => optional(p.max_tokens) },
    { label: '', cell: (p) => state(true, p.is_sandbox) },
  ],
  tones: [
    { label: 'Key', cell: (t) => mono(t.key) },
    { label: 'Name', cell: (t) => plain(`${t.emoji ? `${t.emoji} ` : ''}${t.name}`) },
    { label: 'Instructions', cell: (t) => muted(t.instructions), className: 'max-w-80 truncate' },
  ],
  agents: [
    { label: 'Key', cell: (a) => mono(a.key) },
    { label: 'Name', cell: (a) => (a.name ? plain(a.name) : muted('—')) },
    { label: 'Preset', cell: (a) => muted(a.preset_key) },
    { label: 'Tone', cell: (a) => muted(a.tone_key) },
    { label: 'Tools', cell: (a) => optional(a.tools.length) },
    { label: 'Version', cell: (a) => <Badge variant="mono">v{a.version}</Badge> },
    { label: '', cell: (a) => state(a.enabled, a.is_sandbox) },
  ],
}
