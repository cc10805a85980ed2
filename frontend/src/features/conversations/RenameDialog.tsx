import { useState, type FormEvent } from 'react'
import { api } from '@/lib/api/client'
import { invalidate } from '@/lib/resource'
import { messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Dialog, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'

const MAX_TITLE = 200

export function RenameDialog({
  conversation,
  open,
  onOpenChange,
}: {
  conversation: { id: string; title: string }
  open: boolean
  onOpenChange: (open: boolean) => void
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} label="Rename conversation">
      <RenameForm conversation={conversation} done={() => onOpenChange(false)} />
    </Dialog>
  )
}

function RenameForm({ conversation, done }: { conversation: { id: string; title: string }; done: () => void }) {
  const [title, setTitle] = useState(conversation.title)
  const [saving, setSaving] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const trimmed = title.trim()
  const invalid = trimmed.length === 0 || trimmed.length > MAX_TITLE
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (invalid) return
    setSaving(true)
    setError(null)
    try {
      await api.rename(conversation.id, trimmed)
      invalidate('conversations')
      invalidate(`conversation:${conversation.id}`)
      done()
    } catch (cause) {
      setError(messageOf(cause))
      setSaving(false)
    }
  }
  return (
    <form onSubmit={submit} className="grid gap-4">
      <DialogHeader>
        <DialogTitle>Rename conversation</DialogTitle>
        <DialogDescription>Titles are yours to set; Synapse never generates them.</DialogDescription>
      </DialogHeader>
      <div className="grid gap-1.5">
        <Input
          autoFocus
          aria-label="Title"
          value={title}
          maxLength={MAX_TITLE + 50}
          onChange={(event) => setTitle(event.target.value)}
          onFocus={(event) => event.currentTarget.select()}
        />
        <p className={trimmed.length > MAX_TITLE ? 'text-xs text-destructive' : 'text-xs text-muted-foreground'}>
          {trimmed.length}/{MAX_TITLE}
        </p>
        {error && (
          <p role="alert" className="text-xs text-destructive">
            {error}
          </p>
        )}
      </div>
      <DialogFooter>
        <Button variant="ghost" onClick={done}>
          Cancel
        </Button>
        <Button type="submit" disabled={invalid || saving}>
          {saving ? 'Saving…' : 'Save'}
        </Button>
      </DialogFooter>
    </form>
  )
}
