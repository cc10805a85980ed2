// A Command-like multi-select: a trigger showing the count, a popover with a filter box and a
// checkbox per option (native checkboxes: Tab and Space work without extra code).
import { ChevronDown } from '@/components/icons'
import { useMemo, useState } from 'react'
import { cn } from '@/lib/cn'
import { Badge } from './badge'
import { buttonVariants } from './button'
import { Popover, PopoverContent, PopoverTrigger } from './popover'

export interface Option {
  value: string
  label: string
  hint?: string
}

export function MultiSelect({
  label,
  options,
  selected,
  onChange,
  emptyText = 'Nothing to choose from yet.',
}: {
  label: string
  options: Option[]
  selected: string[]
  onChange: (values: string[]) => void
  emptyText?: string
}) {
  const [filter, setFilter] = useState('')
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase()
    return needle ? options.filter((o) => `${o.label} ${o.hint ?? ''}`.toLowerCase().includes(needle)) : options
  }, [filter, options])
  const toggle = (value: string) =>
    onChange(selected.includes(value) ? selected.filter((v) => v !== value) : [...selected, value])
  return (
    <Popover onOpenChange={(open) => !open && setFilter('')}>
      <PopoverTrigger className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), selected.length && 'border-primary/50')}>
        {label}
        {selected.length > 0 && <Badge className="px-1 font-mono">{selected.length}</Badge>}
        <ChevronDown className="text-muted-foreground" />
      </PopoverTrigger>
      <PopoverContent className="w-64 p-0">
        <input
          aria-label={`Filter ${label.toLowerCase()}`}
          placeholder={`Filter ${label.toLowerCase()}…`}
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
          className="h-9 w-full border-b bg-transparent px-3 text-sm outline-none placeholder:text-muted-foreground"
        />
        <div role="group" aria-label={label} className="max-h-64 overflow-y-auto p-1">
          {shown.length === 0 && <p className="px-2 py-3 text-center text-xs text-muted-foreground">{options.length ? 'No match.' : emptyText}</p>}
          {shown.map((option) => (
            <label
              key={option.value}
              className="flex cursor-pointer items-center gap-2 rounded-md px-2 py-1.5 text-[13px] hover:bg-accent has-[:focus-visible]:bg-accent"
            >
              <input
                type="checkbox"
                className="size-3.5 accent-[var(--primary)]"
                checked={selected.includes(option.value)}
                onChange={() => toggle(option.value)}
              />
              <span className="shrink-0 truncate">{option.label}</span>
              {option.hint && <span className="ml-auto min-w-0 truncate font-mono text-[11px] text-muted-foreground">{option.hint}</span>}
            </label>
          ))}
        </div>
        {selected.length > 0 && (
          <div className="border-t p-1">
            <button type="button" onClick={() => onChange([])} className="w-full rounded-md px-2 py-1.5 text-left text-xs text-muted-foreground hover:bg-accent">
              Clear selection
            </button>
          </div>
        )}
      </PopoverContent>
    </Popover>
  )
}
