// The registry-managed settings: each value with where it comes from; edit stores a value in the
// registry (it then wins over the file), reset removes it (the file or environment applies again).
import { useState, type FormEvent } from 'react'
import { registry } from '@/lib/api/registry'
import type { RegistrySetting } from '@/lib/api/types'
import { useRegistrySettings } from '@/lib/queries'
import { invalidate } from '@/lib/resource'
import { ErrorState } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { placeErrors } from './form'

/** What the box holds, as the setting's JSON value: empty is null, numbers and booleans typed. */
export function settingValue(text: string): unknown {
  const trimmed = text.trim()
  if (trimmed === '') return null
  if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(trimmed)) return JSON.parse(trimmed) as unknown
  return trimmed
}

export const shownValue = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value))

function SettingRow({ setting }: { setting: RegistrySetting }) {
  const [draft, setDraft] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const act = async (action: () => Promise<unknown>) => {
    setError(null)
    try {
      await action()
      invalidate('registry:settings')
      setDraft(null)
    } catch (cause) {
      const placed = placeErrors(cause, ['value'])
      setError(placed.fields.value ?? placed.message)
    }
  }
  const save = (event: FormEvent) => {
    event.preventDefault()
    void act(() => registry.putSetting(setting.name, settingValue(draft ?? '')))
  }
  return (
    <TableRow data-testid="setting-row" data-name={setting.name}>
      <TableCell className="align-top">
        <div className="font-mono text-xs">{setting.name}</div>
        {setting.help && <div className="mt-0.5 max-w-72 text-xs text-muted-foreground">{setting.help}</div>}
      </TableCell>
      <TableCell className="align-top">
        {draft === null ? (
          <span className="font-mono text-xs">{shownValue(setting.value) || <span className="text-muted-foreground">not set</span>}</span>
        ) : (
          <form onSubmit={save} className="flex items-center gap-1.5" aria-label={`Edit ${setting.name}`}>
            <Input aria-label={setting.name} aria-invalid={error ? true : undefined} className="h-8 w-48 font-mono text-xs" value={draft} onChange={(event) => setDraft(event.target.value)} autoFocus />
            <Button type="submit" size="sm">
              Save
            </Button>
            <Button variant="ghost" size="sm" onClick={() => (setDraft(null), setError(null))}>
              Cancel
            </Button>
          </form>
        )}
        {error && (
          <p role="alert" className="mt-1 text-xs text-destructive">
            {error}
          </p>
        )}
      </TableCell>
      <TableCell className="align-top">
        <Badge variant={setting.source === 'registry' ? 'default' : 'outline'} data-testid="setting-source">
          {setting.source}
        </Badge>
      </TableCell>
      <TableCell className="align-top">
        <div className="flex justify-end gap-1">
          {draft === null && (
            <Button variant="ghost" size="xs" onClick={() => setDraft(shownValue(setting.value))}>
              Edit
            </Button>
          )}
          {(setting.source === 'registry' || (setting.stored !== null && setting.stored !== undefined)) && (
            <Button variant="ghost" size="xs" title="Remove the stored value: the file, environment or default applies again" onClick={() => void act(() => registry.resetSetting(setting.name))}>
              Reset
            </Button>
          )}
        </div>
      </TableCell>
    </TableRow>
  )
}

export function SettingsTab() {
  const { data, error, reload } = useRegistrySettings()
  if (!data && error !== undefined) return <ErrorState error={error} retry={reload} />
  if (!data) return <Skeleton className="h-32" aria-label="Loading" />
  return (
    <div className="rounded-lg border">
      <Table aria-label="Settings">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Setting</TableHead>
            <TableHead>Value</TableHead>
            <TableHead>Source</TableHead>
            <TableHead className="w-px">
              <span className="sr-only">Actions</span>
            </TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {data.settings.map((setting) => (
            <SettingRow key={setting.name} setting={setting} />
          ))}
        </TableBody>
      </Table>
    </div>
  )
}
