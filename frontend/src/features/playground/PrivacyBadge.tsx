// The playground's mark on a conversation whose turns leave redacted (the `privacy_enabled` setting
// and the conversation's own flag both on): how many values its vault holds (never a value), and
// the switch that opts this one conversation out, or back in, and Reveal, which asks for the values
// behind the placeholders (the only place they show).
import { KeyRound } from '@/components/icons'
import { useState } from 'react'
import { messageOf } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Tooltip } from '@/components/ui/tooltip'
import { json, request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'
import { plural } from '@/lib/format'
import { useResource } from '@/lib/resource'

type PrivacyStatus = components['schemas']['PrivacyStatus']
type Revealed = components['schemas']['RevealedValues']['values']

const url = (id: string) => `/api/conversations/${encodeURIComponent(id)}/privacy`

export function PrivacyBadge({ conversationId }: { conversationId: string }) {
  const status = useResource(`privacy:${conversationId}`, () => request<PrivacyStatus>(url(conversationId)))
  const [error, setError] = useState<string | null>(null)
  const [revealed, setRevealed] = useState<Revealed | null>(null)
  const data = status.data
  if (!data?.enabled) return null
  const change = async (anonymize: boolean) => {
    try {
      await request<PrivacyStatus>(url(conversationId), json('PUT', { anonymize_pii: anonymize }))
      setError(null)
      status.reload()
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  const reveal = async () => {
    if (revealed) return setRevealed(null)
    try {
      setRevealed((await request<{ values: Revealed }>(`${url(conversationId)}/values`)).values)
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  const shown = data.redacting
    ? `Personal data is replaced by placeholders before each request leaves, and put back in the answers: ${plural(data.placeholders, 'value')} so far. Values are never shown here.`
    : 'This conversation opted out: its turns are sent in clear.'
  return (
    <span className="relative flex shrink-0 items-center gap-1">
      <Tooltip content={error ?? shown}>
        <Badge variant={data.redacting ? 'success' : 'warning'} tabIndex={0} data-testid="privacy-badge">
          <KeyRound /> {data.redacting ? 'Redacted' : 'Not redacted'}
        </Badge>
      </Tooltip>
      <button type="button" onClick={() => change(!data.redacting)} className="cursor-pointer text-[11px] text-muted-foreground underline-offset-2 hover:underline">
        {data.redacting ? 'Send in clear' : 'Redact again'}
      </button>
      {data.placeholders > 0 && (
        <button type="button" aria-expanded={revealed !== null} onClick={reveal} className="cursor-pointer text-[11px] text-muted-foreground underline-offset-2 hover:underline">
          {revealed ? 'Hide values' : 'Reveal values'}
        </button>
      )}
      {revealed && (
        <table aria-label="Redacted values" className="absolute left-0 top-6 z-20 rounded-md border bg-popover p-2 text-[11px] shadow-lg">
          <tbody>
            {revealed.map((entry) => (
              <tr key={entry.placeholder}>
                <td className="pr-2 font-mono">{entry.placeholder}</td>
                <td className="pr-2 text-muted-foreground">{entry.entity}</td>
                <td className="font-mono">{entry.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </span>
  )
}
