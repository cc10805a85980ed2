import { Monitor, Moon, Sun } from '@/components/icons'
import { useTheme, type ThemeChoice } from '@/lib/theme'
import { cn } from '@/lib/cn'
import { DropdownMenu, DropdownMenuContent, DropdownMenuLabel, DropdownMenuRadioGroup, DropdownMenuRadioItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'

const ICONS = { light: Sun, dark: Moon, system: Monitor } as const

export function ThemeMenu({ compact }: { compact: boolean }) {
  const [theme, setTheme] = useTheme()
  const Icon = ICONS[theme]
  return (
    <DropdownMenu>
      <DropdownMenuTrigger
        aria-label={`Theme: ${theme}`}
        className={cn(
          'flex h-8 cursor-pointer items-center gap-2 rounded-md px-2 text-[13px] text-muted-foreground hover:bg-accent hover:text-foreground data-[state=open]:bg-accent',
          compact && 'w-8 justify-center px-0',
        )}
      >
        <Icon className="size-4" />
        {!compact && <span className="capitalize">{theme}</span>}
      </DropdownMenuTrigger>
      <DropdownMenuContent side="top" align="start">
        <DropdownMenuLabel>Theme</DropdownMenuLabel>
        <DropdownMenuRadioGroup value={theme} onValueChange={(value) => setTheme(value as ThemeChoice)}>
          {(['light', 'dark', 'system'] as const).map((choice) => {
            const ItemIcon = ICONS[choice]
            return (
              <DropdownMenuRadioItem key={choice} value={choice} className="capitalize">
                <ItemIcon /> {choice}
              </DropdownMenuRadioItem>
            )
          })}
        </DropdownMenuRadioGroup>
      </DropdownMenuContent>
    </DropdownMenu>
  )
}
