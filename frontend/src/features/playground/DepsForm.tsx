// The deps of an agent with a deps_schema: a compact form above the composer, sent with each
// message as `deps` and started from the values the conversation remembers.
import { useEffect, useMemo, useState, type ReactNode } from 'react'
import { Input } from '@/components/ui/input'
import type { AgentInfo, ThreadConversation } from '@/lib/api/types'
import { depsFields, rawOf, valuesOf, type DepsField, type RawValues } from './depsFields'

export function DepsForm({
  fields,
  raw,
  onChange,
  disabled,
}: {
  fields: DepsField[]
  raw: RawValues
  onChange: (raw: RawValues) => void
  disabled?: boolean
}) {
  const set = (name: string, value: string | boolean) => onChange({ ...raw, [name]: value })
  return (
    <div className="shrink-0 px-3 sm:px-6">
      <fieldset className="mx-auto flex w-full max-w-3xl flex-wrap items-end gap-x-3 gap-y-2 rounded-lg border bg-muted/30 px-3 py-2" disabled={disabled} aria-label="Deps" data-testid="deps-form">
        <legend className="px-1 text-xs font-medium text-muted-foreground">Deps</legend>
        {fields.map((field) => {
          const id = `deps-${field.name}`
          const label = (
            <label htmlFor={id} className="text-[11px] text-muted-foreground" title={field.description ?? undefined}>
              {field.label}
              {field.required && (
                <span className="ml-0.5 text-destructive" aria-hidden>
                  *
                </span>
              )}
            </label>
          )
          const value = raw[field.name]
          if (field.kind === 'boolean')
            return (
              <div key={field.name} className="flex h-8 items-center gap-1.5">
                <input id={id} type="checkbox" checked={value === true} aria-required={field.required} onChange={(event) => set(field.name, event.target.checked)} className="size-3.5" />
                {label}
              </div>
            )
          return (
            <div key={field.name} className="flex min-w-32 flex-1 flex-col gap-0.5">
              {label}
              {field.kind === 'enum' ? (
                <select
                  id={id}
                  value={typeof value === 'string' ? value : ''}
                  required={field.required}
                  onChange={(event) => set(field.name, event.target.value)}
                  className="h-8 rounded-md border border-input bg-transparent px-2 text-sm focus-visible:outline-2 focus-visible:outline-ring"
                >
                  <option value="">—</option>
                  {field.options.map((option, index) => (
                    <option key={index} value={String(index)}>
                      {typeof option === 'string' ? option : JSON.stringify(option)}
                    </option>
                  ))}
                </select>
              ) : (
                <Input
                  id={id}
                  type={field.kind === 'string' ? 'text' : 'number'}
                  step={field.kind === 'integer' ? 1 : 'any'}
                  value={typeof value === 'string' ? value : ''}
                  required={field.required}
                  onChange={(event) => set(field.name, event.target.value)}
                  className="h-8 font-mono text-xs"
                />
              )}
            </div>
          )
        })}
      </fieldset>
    </div>
  )
}

/**
 * The deps form of the selected agent (null when its info has no deps_schema with properties) and
 * the `deps` to send (null: send none). The inputs start from the conversation's stored values
 * each time another conversation (or new stored values) comes in; they stay as typed otherwise.
 */
export function useDepsForm(
  agent: Pick<AgentInfo, 'deps_schema'> | undefined,
  conversation: Pick<ThreadConversation, 'id' | 'deps_values'> | undefined,
  disabled: boolean,
): { form: ReactNode; values: Record<string, unknown> | null } {
  const fields = useMemo(() => depsFields(agent?.deps_schema), [agent?.deps_schema])
  const [raw, setRaw] = useState<RawValues>({})
  const stored = conversation?.deps_values ? JSON.stringify(conversation.deps_values) : null
  useEffect(() => {
    if (stored) setRaw(rawOf(JSON.parse(stored) as Record<string, unknown>, fields))
  }, [conversation?.id, stored, fields])
  if (fields.length === 0) return { form: null, values: null }
  return { form: <DepsForm fields={fields} raw={raw} onChange={setRaw} disabled={disabled} />, values: valuesOf(raw, fields) }
}
