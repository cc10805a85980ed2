import type { AttachmentView } from '@/lib/thread'
import { AttachmentList } from './Attachments'

export function UserBubble({ text, attachments }: { text: string; attachments: AttachmentView[] }) {
  return (
    <div className="flex justify-end" data-testid="user-message">
      <div className="max-w-[80%] space-y-2 rounded-2xl rounded-br-md bg-user-bubble px-3.5 py-2.5">
        <AttachmentList files={attachments} className="justify-end" />
        {text && <p className="whitespace-pre-wrap break-words text-[14px] leading-relaxed">{text}</p>}
      </div>
    </div>
  )
}
