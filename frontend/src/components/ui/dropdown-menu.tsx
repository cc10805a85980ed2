// Menus in the shadcn shape on the Popover above: role="menu", arrow keys, Home/End and typeahead
// move between items, Enter/Space choose, Esc or a click outside closes and focus returns.
import { Check } from '@/components/icons'
import { createContext, useContext, type ComponentProps, type KeyboardEvent, type ReactNode } from 'react'
import { cn } from '@/lib/cn'
import { Popover, PopoverContent, PopoverTrigger, usePopover } from './popover'

export const DropdownMenu = Popover

export function DropdownMenuTrigger({ onKeyDown, ...props }: ComponentProps<'button'>) {
  const { setOpen } = usePopover()
  return (
    <PopoverTrigger
      aria-haspopup="menu"
      onKeyDown={(event) => {
        onKeyDown?.(event)
        if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
          event.preventDefault()
          const target = document.getElementById(event.currentTarget.getAttribute('aria-controls') ?? '')
          if (target && 'showPopover' in target) target.showPopover()
          else setOpen(true)
        }
      }}
      {...props}
    />
  )
}

function items(menu: HTMLElement): HTMLElement[] {
  return [...menu.querySelectorAll<HTMLElement>('[role^="menuitem"]:not([aria-disabled="true"])')]
}

function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
  const list = items(event.currentTarget)
  if (list.length === 0) return
  const index = list.indexOf(document.activeElement as HTMLElement)
  let next: number | null = null
  if (event.key === 'ArrowDown') next = index < 0 || index === list.length - 1 ? 0 : index + 1
  else if (event.key === 'ArrowUp') next = index <= 0 ? list.length - 1 : index - 1
  else if (event.key === 'Home') next = 0
  else if (event.key === 'End') next = list.length - 1
  else if (event.key.length === 1 && /\S/.test(event.key)) {
    const letter = event.key.toLowerCase()
    const order = [...list.slice(index + 1), ...list.slice(0, index + 1)]
    const match = order.find((item) => item.textContent?.trim().toLowerCase().startsWith(letter))
    if (match) next = list.indexOf(match)
  }
  if (next === null) return
  event.preventDefault()
  list[next]?.focus()
}

export function DropdownMenuContent({ className, ...props }: ComponentProps<typeof PopoverContent>) {
  return (
    <PopoverContent
      role="menu"
      onKeyDown={moveFocus}
      className={cn('min-w-40 overflow-hidden p-1', className)}
      {...props}
    />
  )
}

const item =
  'relative flex w-full cursor-pointer select-none items-center gap-2 rounded-md px-2 py-1.5 text-left text-[13px] outline-none hover:bg-accent focus:bg-accent aria-disabled:pointer-events-none aria-disabled:opacity-50 [&_svg]:size-4 [&_svg]:shrink-0 [&_svg]:text-muted-foreground'

function useChoose(onSelect?: () => void) {
  const { setOpen } = usePopover()
  return () => {
    setOpen(false)
    onSelect?.()
  }
}

export function DropdownMenuItem({
  className,
  destructive,
  onSelect,
  disabled,
  ...props
}: Omit<ComponentProps<'button'>, 'onSelect'> & { destructive?: boolean; onSelect?: () => void }) {
  const choose = useChoose(onSelect)
  return (
    <button
      type="button"
      role="menuitem"
      tabIndex={-1}
      aria-disabled={disabled || undefined}
      onClick={() => !disabled && choose()}
      className={cn(item, destructive && 'text-destructive hover:bg-destructive/10 focus:bg-destructive/10 [&_svg]:text-destructive', className)}
      {...props}
    />
  )
}

const RadioContext = createContext<{ value: string; onValueChange: (value: string) => void } | null>(null)

export function DropdownMenuRadioGroup({ value, onValueChange, children }: { value: string; onValueChange: (value: string) => void; children: ReactNode }) {
  return (
    <RadioContext.Provider value={{ value, onValueChange }}>
      <div role="group">{children}</div>
    </RadioContext.Provider>
  )
}

export function DropdownMenuRadioItem({
  value,
  className,
  children,
  disabled,
}: {
  value: string
  className?: string
  children: ReactNode
  disabled?: boolean
}) {
  const group = useContext(RadioContext)
  const checked = group?.value === value
  const choose = useChoose(() => group?.onValueChange(value))
  return (
    <button
      type="button"
      role="menuitemradio"
      tabIndex={-1}
      aria-checked={checked}
      aria-disabled={disabled || undefined}
      onClick={() => !disabled && choose()}
      className={cn(item, 'pr-8', className)}
    >
      {children}
      {checked && <Check className="absolute right-2" aria-hidden />}
    </button>
  )
}

export function DropdownMenuLabel({ className, ...props }: ComponentProps<'div'>) {
  return <div role="presentation" className={cn('px-2 py-1 text-xs font-medium text-muted-foreground', className)} {...props} />
}

export function DropdownMenuSeparator({ className }: { className?: string }) {
  return <div role="separator" className={cn('-mx-1 my-1 h-px bg-border', className)} />
}
