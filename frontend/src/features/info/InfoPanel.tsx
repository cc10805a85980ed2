// The agent's configuration beside the playground; its tab lives in the URL (?info=config|prompt|tools).
// A desktop docks it beside the thread, a tablet lays it over the thread's right side, and a phone
// shows it as a full-screen sheet that takes the focus while it is open and gives it back after.
import { X } from '@/components/icons'
import { useEffect, useRef } from 'react'
import type { AgentInfo } from '@/lib/api/types'
import { ErrorState } from '@/components/common/States'
import { Skeleton } from '@/components/ui/skeleton'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { currentLayout } from '@/features/shell/useLayout'
import { ConfigTab } from './ConfigTab'
import { PromptTab } from './PromptTab'
import { ToolsTab } from './ToolsTab'

export type InfoTab = 'config' | 'prompt' | 'tools'

/** `?info=` as a tab: `1` (or anything unknown but present) opens the default tab. */
export function parseInfoTab(value: string | null): InfoTab | null {
  if (value === null) return null
  return value === 'prompt' || value === 'tools' ? value : 'config'
}

export function InfoPanel({
  agent,
  error,
  tab,
  onTab,
  onClose,
  reload,
}: {
  agent: AgentInfo | undefined
  error: unknown
  tab: InfoTab
  onTab: (tab: InfoTab) => void
  onClose: () => void
  reload: () => void
}) {
  const panel = useRef<HTMLElement>(null)
  useEffect(() => {
    if (currentLayout() !== 'phone') return
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const root = panel.current
    const target = root?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]') ?? root?.querySelector<HTMLElement>('button')
    target?.focus()
    return () => {
      if (opener?.isConnected) opener.focus()
    }
  }, [])
  return (
    <aside
      ref={panel}
      aria-label="Agent info"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !event.defaultPrevented) {
          event.preventDefault()
          onClose()
        }
      }}
      className="flex h-full w-[380px] max-w-full shrink-0 flex-col border-l bg-surface max-lg:absolute max-lg:inset-y-0 max-lg:right-0 max-lg:z-30 max-lg:shadow-2xl max-md:fixed max-md:inset-0 max-md:z-40 max-md:w-full max-md:border-l-0 max-md:shadow-none"
      data-testid="info-panel"
    >
      <Tabs value={tab} onValueChange={(value) => onTab(value as InfoTab)} className="min-h-0 flex-1">
        <div className="flex h-14 shrink-0 items-center gap-2 border-b px-3">
          <TabsList aria-label="Agent info sections">
            <TabsTrigger value="config">Config</TabsTrigger>
            <TabsTrigger value="prompt">Prompt</TabsTrigger>
            <TabsTrigger value="tools">
              Tools
              {agent && <span className="font-mono text-[10px] text-muted-foreground">{agent.tools.length + agent.native_tools.length}</span>}
            </TabsTrigger>
          </TabsList>
          <button type="button" onClick={onClose} aria-label="Close agent info" className="ml-auto cursor-pointer rounded-md p-1.5 max-md:p-2 text-muted-foreground hover:bg-accent hover:text-foreground">
            <X className="size-4" />
          </button>
        </div>
        <div className="min-h-0 flex-1 overflow-y-auto p-4">
          {!agent && error !== undefined && <ErrorState error={error} retry={reload} />}
          {!agent && error === undefined && (
            <div className="space-y-3" aria-busy="true">
              <Skeleton className="h-5 w-32" />
              <Skeleton className="h-24" />
              <Skeleton className="h-5 w-24" />
              <Skeleton className="h-32" />
            </div>
          )}
          {agent && (
            <>
              <TabsContent value="config">
                <ConfigTab agent={agent} />
              </TabsContent>
              <TabsContent value="prompt">
                <PromptTab agent={agent} />
              </TabsContent>
              <TabsContent value="tools">
                <ToolsTab agent={agent} />
              </TabsContent>
            </>
          )}
        </div>
      </Tabs>
    </aside>
  )
}
