import { FileWarning } from '@/components/icons'
import type { DiscoveryProblem } from '@/lib/api/types'
import { Badge } from '@/components/ui/badge'
import { Card } from '@/components/ui/card'
import { Collapsible } from '@/components/ui/collapsible'

/** A target or module discovery could not load; every other agent still shows. */
export function DiscoveryProblemCard({ problem }: { problem: DiscoveryProblem }) {
  return (
    <Card className="border-destructive/40 bg-destructive-soft/60 p-4" role="group" aria-label="Discovery problem" data-testid="discovery-problem">
      <div className="flex items-start gap-3">
        <FileWarning className="mt-0.5 size-4 shrink-0 text-destructive" />
        <div className="min-w-0 flex-1 space-y-1.5">
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-mono text-[13px] font-semibold text-destructive">{problem.exception ?? 'Error'}</span>
            <Badge variant="outline">{problem.kind.replaceAll('_', ' ')}</Badge>
          </div>
          <p className="text-[13px]">{problem.message}</p>
          <p className="truncate font-mono text-xs text-muted-foreground" title={problem.file ?? problem.target}>
            {problem.module ?? problem.target}
            {problem.file && ` — ${problem.file}`}
          </p>
          {problem.traceback && (
            <Collapsible label="Traceback">
              <pre className="max-h-72 overflow-auto rounded-md border bg-background/60 p-3 font-mono text-[11px] leading-relaxed">{problem.traceback}</pre>
            </Collapsible>
          )}
        </div>
      </div>
    </Card>
  )
}
