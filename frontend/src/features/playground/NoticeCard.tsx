import { Info, Shuffle } from '@/components/icons'

/** Something worth knowing that is not an error, such as a model fallback. */
export function NoticeCard({ kind, message }: { kind: string; message: string }) {
  const Icon = kind === 'fallback' ? Shuffle : Info
  return (
    <div role="note" data-testid="notice" className="flex items-start gap-2 rounded-lg border border-primary/25 bg-primary/5 px-3 py-2 text-[13px]">
      <Icon className="mt-0.5 size-3.5 shrink-0 text-primary" />
      <p>
        {kind === 'fallback' && <span className="font-medium">Model fallback: </span>}
        {message}
      </p>
    </div>
  )
}
