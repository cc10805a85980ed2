// The row menu of a conversation, in the sidebar and in History: open, rename, delete.
import { MoreHorizontal, MessageSquare, Pencil, Trash2 } from '@/components/icons'
import { useState } from 'react'
import { useLocation, useNavigate } from 'react-router'
import type { ConversationRow } from '@/lib/api/types'
import { api } from '@/lib/api/client'
import { cn } from '@/lib/cn'
import { invalidate } from '@/lib/resource'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuSeparator, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { ConfirmDialog } from './ConfirmDialog'
import { RenameDialog } from './RenameDialog'
import { conversationPath } from './paths'

type Row = Pick<ConversationRow, 'id' | 'title' | 'agent_key'>

export function ConversationMenu({ conversation, className }: { conversation: Row; className?: string }) {
  const navigate = useNavigate()
  const location = useLocation()
  const [renaming, setRenaming] = useState(false)
  const [deleting, setDeleting] = useState(false)
  const path = conversationPath(conversation.agent_key, conversation.id)
  const remove = async () => {
    await api.remove(conversation.id)
    invalidate('conversations')
    invalidate(`conversation:${conversation.id}`)
    if (location.pathname === path) navigate(`/agents/${encodeURIComponent(conversation.agent_key)}`, { replace: true })
  }
  return (
    <>
      <DropdownMenu>
        <DropdownMenuTrigger
          aria-label={`Actions for ${conversation.title}`}
          className={cn('flex size-7 cursor-pointer items-center justify-center rounded-md text-muted-foreground hover:bg-accent hover:text-foreground data-[state=open]:bg-accent', className)}
        >
          <MoreHorizontal className="size-4" />
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end">
          <DropdownMenuItem onSelect={() => navigate(path)}>
            <MessageSquare /> Open in playground
          </DropdownMenuItem>
          <DropdownMenuItem onSelect={() => setRenaming(true)}>
            <Pencil /> Rename
          </DropdownMenuItem>
          <DropdownMenuSeparator />
          <DropdownMenuItem destructive onSelect={() => setDeleting(true)}>
            <Trash2 /> Delete
          </DropdownMenuItem>
        </DropdownMenuContent>
      </DropdownMenu>
      <RenameDialog conversation={conversation} open={renaming} onOpenChange={setRenaming} />
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title="Delete conversation?"
        description={<>“{conversation.title}”, its messages, tool calls and attachments will be deleted.</>}
        confirmLabel="Delete"
        onConfirm={remove}
      />
    </>
  )
}
