// A provider's API key: write-only. The page shows whether one is set and its last four
// characters; the key typed in is never put back into the page (an uncontrolled input, so not
// even its value attribute holds it).
import { KeyRound } from '@/components/icons'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import type { SecretValue } from './form'

/** "set · ••••abcd", "set", or "not set". */
export function secretLabel(set: boolean, last4: string | null): string {
  if (!set) return 'not set'
  return last4 ? `set · ••••${last4}` : 'set'
}

export function SecretField({
  value,
  onChange,
  secret,
  inputProps,
}: {
  value: SecretValue
  onChange: (value: SecretValue) => void
  /** The stored key's state when editing; absent for a new provider. */
  secret: { set: boolean; last4: string | null } | undefined
  inputProps: Record<string, unknown>
}) {
  const input = (
    <Input
      type="password"
      autoComplete="new-password"
      spellCheck={false}
      placeholder={secret?.set ? 'The new key' : 'sk-…'}
      onChange={(event) => onChange({ mode: event.target.value || secret?.set ? 'replace' : 'keep', value: event.target.value })}
      {...inputProps}
    />
  )
  if (!secret) return input
  const status = (
    <span className="inline-flex items-center gap-1.5 font-mono text-xs" data-testid="secret-status">
      <KeyRound className="size-3.5 text-muted-foreground" />
      {secretLabel(secret.set, secret.last4)}
    </span>
  )
  if (!secret.set)
    return (
      <div className="grid gap-1.5">
        {status}
        {input}
      </div>
    )
  if (value.mode === 'replace')
    return (
      <div className="flex items-center gap-2">
        {input}
        <Button variant="ghost" size="sm" onClick={() => onChange({ mode: 'keep', value: '' })}>
          Cancel
        </Button>
      </div>
    )
  return (
    <div className="flex flex-wrap items-center gap-2">
      {value.mode === 'remove' ? <span className="text-xs text-destructive">Removed when you save.</span> : status}
      <span className="ml-auto flex gap-1">
        {value.mode === 'remove' ? (
          <Button variant="ghost" size="xs" onClick={() => onChange({ mode: 'keep', value: '' })}>
            Undo
          </Button>
        ) : (
          <>
            <Button variant="outline" size="xs" onClick={() => onChange({ mode: 'replace', value: '' })}>
              Replace
            </Button>
            <Button variant="ghost" size="xs" className="text-destructive" onClick={() => onChange({ mode: 'remove', value: '' })}>
              Remove
            </Button>
          </>
        )}
      </span>
    </div>
  )
}
