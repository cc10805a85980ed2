import type { ReactNode } from 'react'
import type { AttachmentView } from '@/lib/thread'
import { AttachmentList } from './Attachments'

/** A message of the user's; `actions` (edit and re-run) show beside it on hover or focus. */
export function UserBubble({ text, attachments, actions }: { text: string; attachments: AttachmentView[]; actions?: ReactNode }) {
  return (
    <div className="group flex items-start justify-end gap-1.5" data-testid="user-message">
      {actions && (
        <div className="mt-1 flex shrink-0 gap-0.5 opacity-0 transition-opacity group-hover:opacity-100 group-focus-within:opacity-100 [@media(hover:none)]:opacity-100">
          {actions}
        </div>
      )}
      <div className="max-w-[80%] space-y-2 rounded-2xl rounded-br-md bg-user-bubble px-3.5 py-2.5">
        <AttachmentList files={attachments} className="justify-end" />
        {text && <p className="whitespace-pre-wrap break-words text-[14px] leading-relaxed">{text}</p>}
      </div>
    </div>
  )
}
