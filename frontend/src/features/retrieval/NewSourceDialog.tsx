// A new source: its slug and name, its kind and that kind's settings (a folder's path and globs, a
// list of URLs). An upload source then takes its first files. A refusal is shown under the form,
// which keeps everything typed.
import { useState, type FormEvent } from 'react'
import { messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Dialog, DialogDescription, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { box, Field } from '@/features/rules/Field'
import { invalidate } from '@/lib/resource'
import { ragApi, type NewSource, type Source } from './api'
import { UploadFiles } from './UploadFiles'

export const KINDS = [
  ['folder', 'Folder', 'Files under a folder on this machine'],
  ['upload', 'Uploaded files', 'Files you upload here'],
  ['urls', 'URLs', 'Pages fetched from a list of URLs'],
] as const

type Kind = (typeof KINDS)[number][0]

export interface SourceDraft {
  slug: string
  name: string
  description: string
  kind: Kind
  path: string
  include: string
  exclude: string
  urls: string
  tenant: string
}

export const EMPTY_DRAFT: SourceDraft = { slug: '', name: '', description: '', kind: 'folder', path: '', include: '', exclude: '', urls: '', tenant: '' }

/** One entry per line (or comma, for globs); blanks dropped. */
export const lines = (text: string, commas = false): string[] =>
  text
    .split(commas ? /[\n,]/ : /\n/)
    .map((line) => line.trim())
    .filter(Boolean)

/** The request body for a draft: only its kind's fields, globs left to the server when empty. */
export function bodyOf(draft: SourceDraft): NewSource {
  const slug = draft.slug.trim()
  const body: NewSource = { slug, name: draft.name.trim() || slug, kind: draft.kind }
  if (draft.description.trim()) body.description = draft.description.trim()
  if (draft.tenant.trim()) body.tenant = draft.tenant.trim()
  if (draft.kind === 'folder') {
    body.path = draft.path.trim()
    const include = lines(draft.include, true)
    const exclude = lines(draft.exclude, true)
    if (include.length) body.include = include
    if (exclude.length) body.exclude = exclude
  }
  if (draft.kind === 'urls') body.urls = lines(draft.urls)
  return body
}

const area = 'min-h-16 w-full rounded-md border border-input bg-transparent px-3 py-2 font-mono text-xs focus-visible:outline-2 focus-visible:outline-ring'

function NewSourceForm({ onCreated, onCancel }: { onCreated: (source: Source) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<SourceDraft>(EMPTY_DRAFT)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const change = (patch: Partial<SourceDraft>) => setDraft((current) => ({ ...current, ...patch }))
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const created = await ragApi.create(bodyOf(draft))
      invalidate('rag:sources')
      onCreated(created)
    } catch (cause) {
      setError(messageOf(cause))
      setBusy(false)
    }
  }
  return (
    <form onSubmit={submit} aria-label="New source" className="grid gap-4" noValidate>
      <DialogTitle>New source</DialogTitle>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Slug" hint="Lowercase letters, digits and -">
          {(aria) => <input {...aria} value={draft.slug} onChange={(event) => change({ slug: event.target.value })} className={`${box} font-mono`} autoComplete="off" />}
        </Field>
        <Field label="Name" hint="The slug when empty">
          {(aria) => <input {...aria} value={draft.name} onChange={(event) => change({ name: event.target.value })} className={box} autoComplete="off" />}
        </Field>
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Description">
          {(aria) => <input {...aria} value={draft.description} onChange={(event) => change({ description: event.target.value })} className={box} autoComplete="off" />}
        </Field>
        <Field label="Tenant" hint="type:id, only that tenant's agents search it; every tenant's when empty">
          {(aria) => <input {...aria} value={draft.tenant} onChange={(event) => change({ tenant: event.target.value })} className={`${box} font-mono`} placeholder="org:acme" autoComplete="off" />}
        </Field>
      </div>
      <fieldset className="grid gap-1.5">
        <legend className="mb-1.5 text-[13px] font-medium">Kind</legend>
        {KINDS.map(([kind, label, hint]) => (
          <label key={kind} className="flex items-center gap-2 text-sm">
            <input type="radio" name="kind" value={kind} checked={draft.kind === kind} onChange={() => change({ kind })} className="accent-[var(--primary)]" />
            {label}
            <span className="text-xs text-muted-foreground">{hint}</span>
          </label>
        ))}
      </fieldset>
      {draft.kind === 'folder' && (
        <>
          <Field label="Folder" hint="An absolute path on the machine Synapse runs on">
            {(aria) => <input {...aria} value={draft.path} onChange={(event) => change({ path: event.target.value })} className={`${box} font-mono`} autoComplete="off" />}
          </Field>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Include" hint="Globs, one a line; every supported file when empty">
              {(aria) => <textarea {...aria} value={draft.include} onChange={(event) => change({ include: event.target.value })} className={area} placeholder="**/*.md" spellCheck={false} />}
            </Field>
            <Field label="Exclude" hint="Globs, one a line">
              {(aria) => <textarea {...aria} value={draft.exclude} onChange={(event) => change({ exclude: event.target.value })} className={area} placeholder="drafts/**" spellCheck={false} />}
            </Field>
          </div>
        </>
      )}
      {draft.kind === 'urls' && (
        <Field label="URLs" hint="One http(s) URL a line">
          {(aria) => <textarea {...aria} value={draft.urls} onChange={(event) => change({ urls: event.target.value })} className={area} rows={4} placeholder="https://example.org/handbook.html" spellCheck={false} />}
        </Field>
      )}
      {draft.kind === 'upload' && <p className="text-xs text-muted-foreground">Create the source, then pick the files to upload.</p>}
      {error && (
        <p role="alert" className="text-sm text-destructive" data-testid="new-source-error">
          {error}
        </p>
      )}
      <DialogFooter>
        <Button variant="ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button type="submit" disabled={busy}>
          Create
        </Button>
      </DialogFooter>
    </form>
  )
}

/** The dialog: the form, then (an upload source) its file picker. `onDone` gets the new source. */
export function NewSourceDialog({ open, onDone }: { open: boolean; onDone: (created: Source | null) => void }) {
  const [created, setCreated] = useState<Source | null>(null)
  const close = () => {
    const source = created
    setCreated(null)
    onDone(source)
  }
  return (
    <Dialog open={open} onOpenChange={(next) => !next && close()} label="New source" className="max-h-[90vh] max-w-2xl overflow-y-auto">
      {open && created === null && (
        <NewSourceForm
          onCancel={close}
          onCreated={(source) => {
            if (source.kind === 'upload') setCreated(source)
            else onDone(source)
          }}
        />
      )}
      {open && created !== null && (
        <div className="grid gap-4">
          <DialogTitle>Upload files to {created.name}</DialogTitle>
          <DialogDescription>The source is created. Add its files now, or later from its page.</DialogDescription>
          <UploadFiles slug={created.slug} />
          <DialogFooter>
            <Button onClick={close}>Done</Button>
          </DialogFooter>
        </div>
      )}
    </Dialog>
  )
}
