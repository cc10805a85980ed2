// Tool names as chips; past `max` they collapse into a `+N` chip whose popover lists the rest.
import { Wrench } from '@/components/icons'
import { useRef } from 'react'
import { Badge } from '@/components/ui/badge'
import { Popover, PopoverContent, PopoverTrigger, usePopover } from '@/components/ui/popover'

/** The `+N` chip: its popover opens on hover (and on click or Enter) and closes when left. */
function MoreTools({ rest, tools }: { rest: string[]; tools: string[] }) {
  const { setOpen, content } = usePopover()
  const timer = useRef<number | undefined>(undefined)
  const show = (event: React.PointerEvent<HTMLButtonElement>) => {
    window.clearTimeout(timer.current)
    if (event.pointerType !== 'mouse') return
    const element = content.current
    if (element && 'showPopover' in element && !element.matches(':popover-open')) element.showPopover()
    else setOpen(true)
  }
  const leave = () => {
    window.clearTimeout(timer.current)
    timer.current = window.setTimeout(() => setOpen(false), 200)
  }
  const stay = () => window.clearTimeout(timer.current)
  return (
    <>
      <PopoverTrigger
        action="show"
        className="relative z-10 cursor-pointer rounded-md border bg-muted/60 px-1.5 py-px font-mono text-[11px] hover:bg-accent"
        aria-label={`${rest.length} more tools`}
        onPointerEnter={show}
        onPointerLeave={leave}
      >
        +{rest.length}
      </PopoverTrigger>
      <PopoverContent className="w-56 p-2" autoFocus={false} onPointerEnter={stay} onPointerLeave={leave}>
        <p className="px-1 pb-1.5 text-xs font-medium text-muted-foreground">All {tools.length} tools</p>
        <ul className="flex flex-col gap-1">
          {tools.map((tool) => (
            <li key={tool} className="truncate rounded px-1 font-mono text-xs">
              {tool}
            </li>
          ))}
        </ul>
      </PopoverContent>
    </>
  )
}

export function ToolChips({ tools, max = 3 }: { tools: string[]; max?: number }) {
  if (tools.length === 0) return <span className="text-xs text-muted-foreground">No function tools</span>
  const shown = tools.length > max ? tools.slice(0, max - 1) : tools
  const rest = tools.slice(shown.length)
  return (
    <ul className="flex flex-wrap gap-1" aria-label="Tools">
      {shown.map((tool) => (
        <li key={tool}>
          <Badge variant="mono">
            <Wrench className="text-muted-foreground" />
            {tool}
          </Badge>
        </li>
      ))}
      {rest.length > 0 && (
        <li>
          <Popover>
            <MoreTools rest={rest} tools={tools} />
          </Popover>
        </li>
      )}
    </ul>
  )
}
