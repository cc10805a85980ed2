// Where a message is written: Enter sends, Shift+Enter breaks the line, files come from the
// picker (or a drop anywhere on the playground), and Stop cancels a running answer.
import { ArrowUp, Paperclip, Square } from '@/components/icons'
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react'
import { Button } from '@/components/ui/button'
import { Textarea } from '@/components/ui/textarea'
import { Tooltip } from '@/components/ui/tooltip'
import { useLayout } from '@/features/shell/useLayout'
import { AttachmentList } from './Attachments'

const MAX_HEIGHT = 200

export function Composer({
  busy,
  disabled,
  disabledReason,
  files,
  onFiles,
  onSend,
  onStop,
  modelSelect,
  chatAs,
  inputRef,
}: {
  busy: boolean
  disabled?: boolean
  disabledReason?: string
  files: File[]
  onFiles: (files: File[]) => void
  onSend: (message: string) => void
  onStop: () => void
  modelSelect: ReactNode
  chatAs?: ReactNode
  inputRef: React.RefObject<HTMLTextAreaElement>
}) {
  const [text, setText] = useState('')
  // A phone's keyboard has no Shift+Enter to speak of, and the long hint would fill the box.
  const layout = useLayout()
  const picker = useRef<HTMLInputElement>(null)
  const canSend = !busy && !disabled && (text.trim().length > 0 || files.length > 0)

  useEffect(() => {
    const element = inputRef.current
    if (!element) return
    element.style.height = 'auto'
    element.style.height = `${Math.min(element.scrollHeight, MAX_HEIGHT)}px`
  }, [text, inputRef])

  const submit = (event?: FormEvent) => {
    event?.preventDefault()
    if (!canSend) return
    onSend(text.trim())
    setText('')
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      submit()
    } else if (event.key === 'Escape' && busy) {
      event.preventDefault()
      onStop()
    }
  }

  return (
    <div className="shrink-0 px-3 pb-3 pt-2 sm:px-6 sm:pb-5">
      <form onSubmit={submit} className="mx-auto w-full max-w-3xl rounded-xl border bg-card shadow-sm focus-within:border-ring/60" aria-label="Message composer">
        <AttachmentList
          files={files.map((file) => ({ name: file.name, mediaType: file.type, size: file.size, url: null }))}
          onRemove={(index) => onFiles(files.filter((_, i) => i !== index))}
          className="px-3 pt-3"
        />
        <Textarea
          ref={inputRef}
          rows={1}
          value={text}
          disabled={disabled}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder={disabled ? disabledReason : layout === 'phone' ? 'Message the agent…' : 'Message the agent…  (Enter to send, Shift+Enter for a new line)'}
          aria-label="Message"
          className="block max-h-[200px] px-3.5 pb-1 pt-3"
        />
        <div className="flex items-center gap-1 px-2 pb-2">
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            data-testid="file-input"
            onChange={(event) => {
              onFiles([...files, ...Array.from(event.target.files ?? [])])
              event.target.value = ''
            }}
          />
          <Tooltip content="Attach files (or drop them here)">
            <Button variant="ghost" size="icon-sm" onClick={() => picker.current?.click()} disabled={disabled} aria-label="Attach files">
              <Paperclip />
            </Button>
          </Tooltip>
          {modelSelect}
          {chatAs}
          <div className="ml-auto">
            {busy ? (
              <Button size="sm" variant="secondary" onClick={onStop} aria-label="Stop (Esc)">
                <Square className="fill-current" /> Stop
              </Button>
            ) : (
              <Button size="icon" type="submit" disabled={!canSend} aria-label="Send (Enter)" className="rounded-lg">
                <ArrowUp />
              </Button>
            )}
          </div>
        </div>
      </form>
    </div>
  )
}
