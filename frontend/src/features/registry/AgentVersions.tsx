// Every version of a configured agent (each edit makes one), newest first, with its definition.
import { registry } from '@/lib/api/registry'
import type { ConfiguredAgent } from '@/lib/api/types'
import { formatDateTime } from '@/lib/format'
import { useResource } from '@/lib/resource'
import { ErrorState } from '@/components/common/States'
import { JsonView } from '@/components/json/JsonView'
import { Badge } from '@/components/ui/badge'
import { Collapsible } from '@/components/ui/collapsible'

function VersionList({ agent }: { agent: ConfiguredAgent }) {
  const { data, error, reload } = useResource(`registry:versions:${agent.key}:${agent.version}`, () => registry.versions(agent.key))
  if (error !== undefined && !data) return <ErrorState error={error} retry={reload} className="py-4" />
  if (!data) return <p className="text-xs text-muted-foreground">Loading…</p>
  const versions = [...data.versions].sort((a, b) => b.version - a.version)
  return (
    <ol className="grid gap-2" aria-label="Versions">
      {versions.map((version) => (
        <li key={version.version} className="rounded-md border px-3 py-2" data-testid="agent-version">
          <Collapsible
            label={
              <span className="flex items-center gap-2">
                <span className="font-mono text-foreground">v{version.version}</span>
                <span className="font-normal">{formatDateTime(version.created_at)}</span>
                {version.version === agent.version && <Badge variant="success">current</Badge>}
              </span>
            }
          >
            <JsonView value={version.definition} openDepth={1} />
          </Collapsible>
        </li>
      ))}
    </ol>
  )
}

export function AgentVersions({ agent }: { agent: ConfiguredAgent }) {
  return (
    <section className="border-t pt-4">
      <Collapsible label={`Versions (${agent.version})`} triggerClassName="text-sm">
        <VersionList agent={agent} />
      </Collapsible>
    </section>
  )
}
