// Edit, forget and add, offered by every list of memories on the page: the dialogs live once here,
// and a row asks for them through the context.
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { invalidate } from '@/lib/resource'
import { memoriesApi, type Memory } from './api'
import { MemoryDialog } from './MemoryDialog'

interface Actions {
  edit: (memory: Memory) => void
  forget: (memory: Memory) => void
  add: () => void
}

const MemoryActionsContext = createContext<Actions | null>(null)

export function useMemoryActions(): Actions {
  const actions = useContext(MemoryActionsContext)
  if (!actions) throw new Error('useMemoryActions must be inside <MemoryActions>')
  return actions
}

/** `tenant`: the one a new memory starts with. */
export function MemoryActions({ tenant, children }: { tenant: string; children: ReactNode }) {
  const [editing, setEditing] = useState<Memory | null | undefined>(undefined)
  const [forgetting, setForgetting] = useState<Memory | null>(null)
  const actions = useMemo<Actions>(() => ({ edit: setEditing, forget: setForgetting, add: () => setEditing(null) }), [])
  return (
    <MemoryActionsContext.Provider value={actions}>
      {children}
      <MemoryDialog open={editing !== undefined} memory={editing ?? null} tenant={tenant} onClose={() => setEditing(undefined)} />
      <ConfirmDialog
        open={forgetting !== null}
        onOpenChange={(open) => !open && setForgetting(null)}
        title="Forget this memory?"
        description={forgetting ? `"${forgetting.content}" is deleted from ${forgetting.tenant}: no agent recalls it again.` : ''}
        confirmLabel="Forget"
        onConfirm={async () => {
          await memoriesApi.remove(forgetting!.id)
          invalidate('memories:')
        }}
      />
    </MemoryActionsContext.Provider>
  )
}
