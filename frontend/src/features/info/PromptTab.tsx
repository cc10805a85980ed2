import { FunctionSquare } from '@/components/icons'
import type { AgentInfo } from '@/lib/api/types'
import { Markdown } from '@/components/markdown/Markdown'
import { InfoSection } from './Section'

export function PromptTab({ agent }: { agent: AgentInfo }) {
  const statics = agent.instructions.filter((item) => item.kind === 'static' && item.text)
  const dynamics = agent.instructions.filter((item) => item.kind !== 'static')
  if (agent.instructions.length === 0) return <p className="text-sm text-muted-foreground">This agent has no instructions.</p>
  return (
    <div className="space-y-5">
      {statics.length > 0 && (
        <InfoSection title="Instructions">
          <div className="space-y-3">
            {statics.map((item, i) => (
              <div key={i} className="rounded-md border bg-muted/30 p-3">
                <Markdown text={item.text ?? ''} className="text-[13px]" />
              </div>
            ))}
          </div>
        </InfoSection>
      )}
      {dynamics.length > 0 && (
        <InfoSection title="Dynamic instructions" count={dynamics.length}>
          <p className="text-xs text-muted-foreground">Computed for each run; their text depends on the run's dependencies.</p>
          <ul className="divide-y rounded-md border">
            {dynamics.map((item, i) => (
              <li key={i} className="flex items-center gap-2 px-2.5 py-1.5 text-xs">
                <FunctionSquare className="size-3.5 shrink-0 text-primary" />
                <span className="font-mono">{item.name ?? 'instructions'}</span>
                {item.location && <span className="ml-auto truncate font-mono text-[11px] text-muted-foreground">{item.location}</span>}
              </li>
            ))}
          </ul>
        </InfoSection>
      )}
    </div>
  )
}
