// A person's choice about sharing: never chose (the default applies), shares, or does not share.
// It decides only whether what is distilled from their conversations from then on may be shared.
import { useState } from 'react'
import { messageOf } from '@/components/common/States'
import { Skeleton } from '@/components/ui/skeleton'
import { updateResource } from '@/lib/resource'
import { memoriesApi, type Sharing } from './api'
import { sharingKey, useMemoryStatus, useSharing } from './queries'

type Choice = 'default' | 'shares' | 'does-not-share'
const choiceOf = (share: boolean | null): Choice => (share === null ? 'default' : share ? 'shares' : 'does-not-share')
const VALUES: Record<Choice, boolean | null> = { default: null, shares: true, 'does-not-share': false }

const defaultText = (shares: boolean | undefined) => (shares === undefined ? 'the default' : `the default: ${shares ? 'shares' : 'does not share'}`)

export function SharingControl({ actor }: { actor: string }) {
  const sharing = useSharing(actor)
  const status = useMemoryStatus()
  const [saving, setSaving] = useState(false)
  const [error, setError] = useState<string | null>(null)

  if (sharing.data === undefined && sharing.error !== undefined)
    return (
      <p role="alert" className="text-xs text-destructive">
        Their sharing choice could not be read: {messageOf(sharing.error)}
      </p>
    )
  if (sharing.data === undefined) return <Skeleton className="h-20" />
  const current = sharing.data
  const byDefault = current.share_memories === null ? current.effective : status.data?.share_memories_default
  const labels: Record<Choice, string> = {
    default: `Never chose (uses ${defaultText(byDefault)})`,
    shares: 'Shares',
    'does-not-share': 'Does not share',
  }

  const choose = async (choice: Choice) => {
    setSaving(true)
    setError(null)
    try {
      const answer = await memoriesApi.setSharing(actor, VALUES[choice])
      updateResource<Sharing>(sharingKey(actor), () => answer)
    } catch (cause) {
      setError(messageOf(cause))
    } finally {
      setSaving(false)
    }
  }

  return (
    <fieldset className="grid gap-1.5 rounded-lg border p-3" disabled={saving} data-testid="memory-sharing">
      <legend className="px-1 text-[13px] font-medium">Sharing what is learnt from {actor}</legend>
      <div className="flex flex-wrap gap-x-4 gap-y-1.5 text-sm" role="radiogroup" aria-label={`Sharing choice of ${actor}`}>
        {(Object.keys(labels) as Choice[]).map((choice) => (
          <label key={choice} className="flex cursor-pointer items-center gap-1.5">
            <input type="radio" name={`sharing-${actor}`} value={choice} checked={choiceOf(current.share_memories) === choice} onChange={() => choose(choice)} />
            {labels[choice]}
          </label>
        ))}
      </div>
      <p className="text-xs text-muted-foreground">
        This gates only the shared memories distilled from their conversations from now on; their personal memories and what is already kept do not change.
      </p>
      {error && (
        <p role="alert" className="text-xs text-destructive">
          {error}
        </p>
      )}
    </fieldset>
  )
}
