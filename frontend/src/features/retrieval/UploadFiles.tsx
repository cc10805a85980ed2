// Files sent to an `upload` source: picked here, stored under Synapse's home, indexed by the next run.
import { Upload } from '@/components/icons'
import { useId, useState } from 'react'
import { messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { plural } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { ragApi, type Uploaded } from './api'

export function UploadFiles({ slug, onUploaded }: { slug: string; onUploaded?: (files: Uploaded[]) => void }) {
  const id = useId()
  const [picked, setPicked] = useState<File[]>([])
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [sent, setSent] = useState<number | null>(null)
  const upload = async () => {
    setBusy(true)
    setError(null)
    try {
      const answer = await ragApi.upload(slug, picked)
      setSent(answer.files.length)
      setPicked([])
      invalidate(`rag:source:${slug}`)
      invalidate('rag:sources')
      onUploaded?.(answer.files)
    } catch (cause) {
      setError(messageOf(cause))
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="grid gap-2" data-testid="upload-files">
      <label htmlFor={id} className="text-[13px] font-medium">
        Files to upload
      </label>
      <input
        id={id}
        type="file"
        multiple
        onChange={(event) => {
          setPicked(Array.from(event.target.files ?? []))
          setSent(null)
        }}
        className="text-sm file:mr-3 file:cursor-pointer file:rounded-md file:border file:border-input file:bg-transparent file:px-2.5 file:py-1 file:text-[13px]"
      />
      <div className="flex items-center gap-3">
        <Button size="sm" variant="outline" onClick={upload} disabled={busy || picked.length === 0}>
          <Upload /> {busy ? 'Uploading…' : picked.length ? `Upload ${plural(picked.length, 'file')}` : 'Upload'}
        </Button>
        {sent !== null && <span className="text-xs text-muted-foreground">{plural(sent, 'file')} uploaded: index the source to search them.</span>}
      </div>
      {error && (
        <p role="alert" className="text-xs text-destructive">
          {error}
        </p>
      )}
    </div>
  )
}
