// The model the next message runs on: the agent's own by default.
import { ChevronsUpDown, Cpu } from '@/components/icons'
import type { ModelOption } from '@/lib/api/types'
import { DropdownMenu, DropdownMenuContent, DropdownMenuLabel, DropdownMenuRadioGroup, DropdownMenuRadioItem, DropdownMenuSeparator, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'

const SOURCE_LABEL: Record<string, string> = {
  agent: "Agent's model",
  demo: 'Offline',
  setting: 'From settings',
  provider: 'Providers with a key',
}

export function ModelSelect({
  models,
  value,
  defaultId,
  onChange,
  disabled,
}: {
  models: ModelOption[]
  value: string | null
  defaultId: string | null
  onChange: (id: string) => void
  disabled?: boolean
}) {
  const current = models.find((model) => model.id === value)
  const sources = [...new Set(models.map((model) => model.source))]
  return (
    <DropdownMenu>
      <DropdownMenuTrigger
        disabled={disabled || models.length === 0}
        aria-label={`Model: ${current?.label ?? value ?? 'default'}`}
        className="flex h-7 max-w-56 cursor-pointer items-center gap-1.5 rounded-md px-2 font-mono text-xs text-muted-foreground hover:bg-accent hover:text-foreground disabled:cursor-default disabled:opacity-50 data-[state=open]:bg-accent"
        data-testid="model-select"
      >
        <Cpu className="size-3.5 shrink-0" />
        <span className="truncate">{current?.label ?? value ?? 'default model'}</span>
        <ChevronsUpDown className="size-3 shrink-0" />
      </DropdownMenuTrigger>
      <DropdownMenuContent side="top" align="start" className="max-h-80 w-72 overflow-y-auto">
        <DropdownMenuRadioGroup value={value ?? ''} onValueChange={onChange}>
          {sources.map((source, i) => (
            <div key={source}>
              {i > 0 && <DropdownMenuSeparator />}
              <DropdownMenuLabel>{SOURCE_LABEL[source] ?? source}</DropdownMenuLabel>
              {models
                .filter((model) => model.source === source)
                .map((model) => (
                  <DropdownMenuRadioItem key={model.id} value={model.id} disabled={!model.available}>
                    <span className="flex min-w-0 flex-col">
                      <span className="truncate font-mono text-xs">
                        {model.label}
                        {model.id === defaultId && <span className="ml-1.5 font-sans text-[10px] text-muted-foreground">default</span>}
                      </span>
                      <span className="truncate text-[11px] text-muted-foreground">
                        {model.available ? model.id : `needs ${model.missing_env ?? 'a key'}`}
                      </span>
                    </span>
                  </DropdownMenuRadioItem>
                ))}
            </div>
          ))}
        </DropdownMenuRadioGroup>
      </DropdownMenuContent>
    </DropdownMenu>
  )
}
