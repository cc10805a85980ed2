// "Edit and re-run" a user message: its text in an editor, a model to run it on, and the files it
// carried. Re-run forks the conversation just before the message and sends the edited one there;
// the original conversation is left as it was.
import { Pencil } from '@/components/icons'
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react'
import type { ModelOption } from '@/lib/api/types'
import type { AttachmentView } from '@/lib/thread'
import { Button } from '@/components/ui/button'
import { Textarea } from '@/components/ui/textarea'
import { Tooltip } from '@/components/ui/tooltip'
import { AttachmentList } from './Attachments'
import { ModelSelect } from './ModelSelect'

export interface RerunInput {
  messageId: string
  message: string
  attachments: AttachmentView[]
  model: string | null
}

export function EditButton({ onClick, disabled }: { onClick: () => void; disabled?: boolean }) {
  return (
    <Tooltip content="Edit and re-run in a fork of this conversation">
      <Button variant="ghost" size="icon-sm" onClick={onClick} disabled={disabled} aria-label="Edit and re-run" data-testid="edit-rerun">
        <Pencil />
      </Button>
    </Tooltip>
  )
}

const MAX_HEIGHT = 240

export function RerunEditor({
  messageId,
  text,
  attachments,
  models,
  model,
  defaultModel,
  working,
  error,
  onRerun,
  onCancel,
}: {
  messageId: string
  text: string
  attachments: AttachmentView[]
  models: ModelOption[]
  model: string | null
  defaultModel: string | null
  working: boolean
  error: string | null
  onRerun: (input: RerunInput) => void
  onCancel: () => void
}) {
  const [draft, setDraft] = useState(text)
  const [chosen, setChosen] = useState(model)
  const [files, setFiles] = useState(attachments)
  const box = useRef<HTMLTextAreaElement>(null)
  const canRun = !working && (draft.trim().length > 0 || files.length > 0)

  useEffect(() => {
    const element = box.current
    if (!element) return
    element.style.height = 'auto'
    element.style.height = `${Math.min(element.scrollHeight, MAX_HEIGHT)}px`
  }, [draft])

  useEffect(() => {
    const element = box.current
    element?.focus()
    element?.setSelectionRange(element.value.length, element.value.length)
  }, [])

  const submit = (event?: FormEvent) => {
    event?.preventDefault()
    if (canRun) onRerun({ messageId, message: draft.trim(), attachments: files, model: chosen })
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      submit()
    } else if (event.key === 'Escape') {
      event.preventDefault()
      onCancel()
    }
  }

  return (
    <form onSubmit={submit} className="ml-auto w-full max-w-[80%] rounded-xl border bg-card shadow-sm focus-within:border-ring/60 max-sm:max-w-full" aria-label="Edit and re-run" data-testid="rerun-editor">
      <AttachmentList files={files} onRemove={(index) => setFiles(files.filter((_, i) => i !== index))} className="px-3 pt-3" />
      <Textarea
        ref={box}
        rows={1}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        aria-label="Edited message"
        className="block max-h-[240px] px-3.5 pb-1 pt-3"
      />
      {error && (
        <p role="alert" className="px-3.5 pb-1 text-xs text-destructive">
          {error}
        </p>
      )}
      <div className="flex items-center gap-1 px-2 pb-2">
        <ModelSelect models={models} value={chosen} defaultId={defaultModel} onChange={setChosen} disabled={working} />
        <span className="ml-2 hidden text-[11px] text-muted-foreground sm:inline">Runs in a new fork; this conversation stays as it is.</span>
        <div className="ml-auto flex gap-1">
          <Button variant="ghost" size="sm" onClick={onCancel} disabled={working}>
            Cancel
          </Button>
          <Button size="sm" type="submit" disabled={!canRun}>
            {working ? 'Forking…' : 'Re-run'}
          </Button>
        </div>
      </div>
    </form>
  )
}
