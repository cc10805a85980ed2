// An agent's tools: picked from the tool registry, plus `tag:<tag>` entries (every tool with
// that tag). Each chosen entry is a chip with a remove button.
import { X } from '@/components/icons'
import { useState } from 'react'
import { Badge } from '@/components/ui/badge'
import { Input } from '@/components/ui/input'
import { MultiSelect, type Option } from '@/components/ui/multi-select'

/** What the tag box adds: `support` and `tag:support` both mean `tag:support`. */
export function tagEntry(text: string): string | null {
  const tag = text.trim().replace(/^tag:/, '').trim()
  return tag ? `tag:${tag}` : null
}

export function ToolsField({
  value,
  onChange,
  options,
  inputProps,
}: {
  value: string[]
  onChange: (value: string[]) => void
  options: Option[]
  inputProps: Record<string, unknown>
}) {
  const [tag, setTag] = useState('')
  const add = () => {
    const entry = tagEntry(tag)
    if (entry && !value.includes(entry)) onChange([...value, entry])
    setTag('')
  }
  return (
    <div className="grid gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <MultiSelect
          label="Pick tools"
          options={options}
          selected={value.filter((entry) => !entry.startsWith('tag:'))}
          onChange={(tools) => onChange([...tools, ...value.filter((entry) => entry.startsWith('tag:'))])}
          emptyText="No tool registered: decorate functions with @synapse_agents.tool."
        />
        <Input
          className="h-8 w-44 font-mono text-xs"
          placeholder="tag:…  (Enter adds)"
          value={tag}
          onChange={(event) => setTag(event.target.value)}
          onKeyDown={(event) => {
            if (event.key !== 'Enter') return
            event.preventDefault()
            add()
          }}
          onBlur={add}
          {...inputProps}
        />
      </div>
      {value.length > 0 && (
        <ul className="flex flex-wrap gap-1" aria-label="Chosen tools">
          {value.map((entry) => (
            <li key={entry}>
              <Badge variant="mono">
                {entry}
                <button type="button" aria-label={`Remove ${entry}`} className="cursor-pointer text-muted-foreground hover:text-foreground" onClick={() => onChange(value.filter((v) => v !== entry))}>
                  <X />
                </button>
              </Badge>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
