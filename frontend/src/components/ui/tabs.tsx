// Tabs in the shadcn shape, written here (small enough not to need a Radix package):
// arrow keys move between tabs, the panel is labelled by its tab.
import { createContext, useContext, useId, type ComponentProps, type KeyboardEvent } from 'react'
import { cn } from '@/lib/cn'

interface TabsState {
  value: string
  onValueChange: (value: string) => void
  base: string
}

const TabsContext = createContext<TabsState | null>(null)

function useTabs(): TabsState {
  const state = useContext(TabsContext)
  if (!state) throw new Error('Tabs parts must be inside <Tabs>')
  return state
}

export function Tabs({
  value,
  onValueChange,
  className,
  ...props
}: Omit<ComponentProps<'div'>, 'onChange'> & { value: string; onValueChange: (value: string) => void }) {
  const base = useId()
  return (
    <TabsContext.Provider value={{ value, onValueChange, base }}>
      <div className={cn('flex flex-col', className)} {...props} />
    </TabsContext.Provider>
  )
}

export function TabsList({ className, ...props }: ComponentProps<'div'>) {
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) return
    const tabs = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('[role="tab"]')]
    const current = tabs.indexOf(document.activeElement as HTMLButtonElement)
    const last = tabs.length - 1
    const next =
      event.key === 'Home' ? 0 : event.key === 'End' ? last : event.key === 'ArrowLeft' ? (current <= 0 ? last : current - 1) : current >= last ? 0 : current + 1
    event.preventDefault()
    tabs[next]?.focus()
    tabs[next]?.click()
  }
  return (
    <div
      role="tablist"
      onKeyDown={onKeyDown}
      className={cn('inline-flex h-8 items-center gap-0.5 rounded-lg bg-muted p-0.5 text-muted-foreground', className)}
      {...props}
    />
  )
}

export function TabsTrigger({ value, className, ...props }: ComponentProps<'button'> & { value: string }) {
  const tabs = useTabs()
  const selected = tabs.value === value
  return (
    <button
      type="button"
      role="tab"
      id={`${tabs.base}-tab-${value}`}
      aria-selected={selected}
      aria-controls={`${tabs.base}-panel-${value}`}
      tabIndex={selected ? 0 : -1}
      onClick={() => tabs.onValueChange(value)}
      className={cn(
        'inline-flex h-7 cursor-pointer items-center justify-center gap-1.5 rounded-md px-2.5 text-[13px] font-medium transition-colors hover:text-foreground aria-selected:bg-background aria-selected:text-foreground aria-selected:shadow-sm',
        className,
      )}
      {...props}
    />
  )
}

export function TabsContent({ value, className, ...props }: ComponentProps<'div'> & { value: string }) {
  const tabs = useTabs()
  if (tabs.value !== value) return null
  return (
    <div
      role="tabpanel"
      id={`${tabs.base}-panel-${value}`}
      aria-labelledby={`${tabs.base}-tab-${value}`}
      tabIndex={0}
      className={cn('outline-none', className)}
      {...props}
    />
  )
}
