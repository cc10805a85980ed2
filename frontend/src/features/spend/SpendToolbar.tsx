// The report's controls: the date range and the agent / user / tenant / model filters (each
// applied on Enter or when it loses focus), and the segmented choices of the chart and the table.
import { DateRange } from '@/features/history/DateRange'
import { FILTERS, type SpendState } from './spendParams'

/** "agent" → "Agent". */
export const label = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)

/** A row of radio buttons in one box (the chart's stacking, the table's grouping). */
export function Segmented<T extends string>({ name, options, value, onChange }: { name: string; options: readonly T[]; value: T; onChange: (value: T) => void }) {
  return (
    <div className="inline-flex h-8 items-center rounded-md border p-0.5" role="radiogroup" aria-label={name}>
      <span className="px-1.5 text-xs text-muted-foreground" aria-hidden>
        {name}
      </span>
      {options.map((option) => (
        <button
          key={option}
          type="button"
          role="radio"
          aria-checked={value === option}
          onClick={() => onChange(option)}
          className="h-6 cursor-pointer rounded px-2 text-xs text-muted-foreground hover:text-foreground aria-checked:bg-accent aria-checked:text-foreground"
        >
          {label(option)}
        </button>
      ))}
    </div>
  )
}

export function SpendToolbar({ state, onChange }: { state: SpendState; onChange: (change: Partial<SpendState>) => void }) {
  return (
    <div className="flex flex-wrap items-center gap-2" role="search">
      <DateRange from={state.from} to={state.to} onChange={(from, to) => onChange({ from, to })} />
      {FILTERS.map((name) => {
        const apply = (value: string) => value.trim() !== state[name] && onChange({ [name]: value.trim() })
        return (
          <input
            // A new value in the URL (back, a link) replaces what was typed.
            key={`${name}=${state[name]}`}
            defaultValue={state[name]}
            onBlur={(event) => apply(event.target.value)}
            onKeyDown={(event) => event.key === 'Enter' && apply(event.currentTarget.value)}
            placeholder={name === 'user' || name === 'tenant' ? `${label(name)} (type:id)` : label(name)}
            aria-label={label(name)}
            maxLength={255}
            className="h-8 w-36 rounded-md border bg-transparent px-2 font-mono text-xs focus-visible:outline-2 focus-visible:outline-ring data-[on=true]:border-primary/60"
            data-on={state[name] !== ''}
          />
        )
      })}
    </div>
  )
}
