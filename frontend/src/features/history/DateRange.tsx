import { CalendarRange, ChevronDown } from '@/components/icons'
import { cn } from '@/lib/cn'
import { Badge } from '@/components/ui/badge'
import { Button, buttonVariants } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Popover, PopoverContent, PopoverTrigger } from '@/components/ui/popover'

const iso = (date: Date) => {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
  return local.toISOString().slice(0, 10)
}

function daysAgo(days: number): string {
  const date = new Date()
  date.setDate(date.getDate() - days)
  return iso(date)
}

const PRESETS: [string, number][] = [
  ['Today', 0],
  ['Last 7 days', 6],
  ['Last 30 days', 29],
]

function label(from: string, to: string): string {
  if (from && to) return from === to ? from : `${from} → ${to}`
  if (from) return `since ${from}`
  if (to) return `until ${to}`
  return 'Date'
}

export function DateRange({ from, to, onChange }: { from: string; to: string; onChange: (from: string, to: string) => void }) {
  const active = Boolean(from || to)
  return (
    <Popover>
      <PopoverTrigger className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), active && 'border-primary/50')}>
        <CalendarRange className="text-muted-foreground" />
        <span className={cn(active && 'font-mono text-xs')}>{label(from, to)}</span>
        {active && <Badge className="px-1 font-mono">1</Badge>}
        <ChevronDown className="text-muted-foreground" />
      </PopoverTrigger>
      <PopoverContent className="w-72 space-y-3">
        <div className="flex flex-wrap gap-1">
          {PRESETS.map(([name, days]) => (
            <Button key={name} size="xs" variant="secondary" onClick={() => onChange(daysAgo(days), iso(new Date()))}>
              {name}
            </Button>
          ))}
        </div>
        <div className="grid grid-cols-2 gap-2">
          <label className="space-y-1 text-xs text-muted-foreground">
            From
            <Input type="date" value={from} max={to || undefined} onChange={(event) => onChange(event.target.value, to)} className="h-8 text-xs" aria-label="From date" />
          </label>
          <label className="space-y-1 text-xs text-muted-foreground">
            To
            <Input type="date" value={to} min={from || undefined} onChange={(event) => onChange(from, event.target.value)} className="h-8 text-xs" aria-label="To date" />
          </label>
        </div>
        {active && (
          <Button size="xs" variant="ghost" onClick={() => onChange('', '')}>
            Clear dates
          </Button>
        )}
      </PopoverContent>
    </Popover>
  )
}
