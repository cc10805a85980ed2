import { AlertTriangle } from '@/components/icons'
import type { AgentInfo } from '@/lib/api/types'
import { JsonView } from '@/components/json/JsonView'
import { Badge } from '@/components/ui/badge'
import { ToolChips } from '@/features/agents/ToolChips'
import { InfoSection, KeyValues } from './Section'
import { settingRows } from './settings'

const show = (value: unknown): string => (value === null || value === undefined ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value))

export function ConfigTab({ agent }: { agent: AgentInfo }) {
  const retries = Object.entries(agent.retries ?? {})
  const metadata = agent.metadata && Object.keys(agent.metadata).length > 0 ? agent.metadata : null
  return (
    <div className="space-y-5">
      {agent.problems.length > 0 && (
        <div className="space-y-1.5">
          {agent.problems.map((problem) => (
            <p key={problem.code} className="flex gap-2 rounded-md border border-warning/40 bg-warning-soft/60 px-2.5 py-2 text-xs">
              <AlertTriangle className="size-3.5 shrink-0 text-warning" />
              {problem.message}
            </p>
          ))}
        </div>
      )}
      <InfoSection title="Model">
        <KeyValues
          rows={[
            ['Provider', agent.model?.provider ?? '—'],
            [
              'Model',
              agent.model ? (
                <span className="inline-flex items-center gap-1.5">
                  {agent.model.name}
                  {agent.model.is_demo && <Badge>demo</Badge>}
                </span>
              ) : (
                'no model set'
              ),
            ],
            ...(agent.model?.fallbacks?.length
              ? [['Fallbacks', agent.model.fallbacks.join(' → ')] as [string, string]]
              : []),
            ...settingRows(agent.model_settings as Record<string, unknown> | null | undefined),
          ]}
        />
      </InfoSection>
      <InfoSection title="Run">
        <KeyValues
          rows={[
            ...retries.map(([key, value]): [string, string] => [`Retries (${key})`, show(value)]),
            ['End strategy', agent.end_strategy ?? '—'],
            ...(agent.tool_timeout ? [['Tool timeout', `${agent.tool_timeout} s`] as [string, string]] : []),
            ['Output', agent.output ? `${agent.output.type}${agent.output.mode ? ` (${agent.output.mode})` : ''}` : 'text'],
            ['Memory', agent.stateless ? 'stateless' : 'multi-turn'],
            ['Deps', agent.deps?.type ?? '—'],
            ...(agent.deps?.factory ? [['Deps factory', agent.deps.factory] as [string, string]] : []),
          ]}
        />
      </InfoSection>
      <InfoSection title="Capabilities" count={agent.tools.length}>
        <ToolChips tools={agent.tools.map((tool) => tool.name)} max={8} />
        {agent.capabilities.length > 0 && (
          <ul className="flex flex-wrap gap-1">
            {agent.capabilities.map((capability) => (
              <li key={capability.class}>
                <Badge variant="outline" title={capability.module ?? undefined}>
                  {capability.class}
                </Badge>
              </li>
            ))}
          </ul>
        )}
      </InfoSection>
      <InfoSection title="Source">
        <KeyValues
          rows={[
            ['Module', agent.module],
            ['Attribute', agent.attribute],
            ...(agent.file ? [['File', agent.file] as [string, string]] : []),
            ['Slug', agent.slug],
          ]}
        />
      </InfoSection>
      {metadata && (
        <InfoSection title="Metadata">
          <JsonView value={metadata} />
        </InfoSection>
      )}
    </div>
  )
}
