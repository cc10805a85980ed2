import { useAgents } from '@/lib/queries'
import { ErrorState, PageHeader } from '@/components/common/States'
import { Skeleton } from '@/components/ui/skeleton'
import { AgentCardView } from './AgentCardView'
import { AgentsEmpty } from './AgentsEmpty'
import { DiscoveryProblemCard } from './DiscoveryProblemCard'

// `min(290px,100%)`: on a window narrower than one card, the card narrows instead of overflowing.
const GRID = 'grid gap-3 [grid-template-columns:repeat(auto-fill,minmax(min(290px,100%),1fr))]'

export function AgentsPage() {
  const { data, error, reload } = useAgents()
  const count = data?.agents.length
  return (
    <div className="h-full overflow-y-auto">
      <PageHeader
        title="Agents"
        description={
          data
            ? `${count} ${count === 1 ? 'agent' : 'agents'} discovered in ${data.targets.join(', ') || 'the project'}`
            : 'Discovering the agents of this project…'
        }
      />
      <div className="space-y-6 p-6">
        {!data && error !== undefined && <ErrorState error={error} retry={reload} />}
        {!data && error === undefined && (
          <div className={GRID} aria-busy="true" aria-label="Loading agents">
            {Array.from({ length: 6 }, (_, i) => (
              <Skeleton key={i} className="h-40 rounded-lg" />
            ))}
          </div>
        )}
        {data && data.problems.length > 0 && (
          <section aria-label="Discovery problems" className="space-y-2">
            <h2 className="text-sm font-medium text-destructive">
              {data.problems.length} {data.problems.length === 1 ? 'place' : 'places'} could not be loaded
            </h2>
            <div className="grid gap-2">
              {data.problems.map((problem, i) => (
                <DiscoveryProblemCard key={`${problem.target}-${i}`} problem={problem} />
              ))}
            </div>
          </section>
        )}
        {data && data.agents.length === 0 && <AgentsEmpty data={data} />}
        {data && data.agents.length > 0 && (
          <div className={GRID}>
            {data.agents.map((agent) => (
              <AgentCardView key={agent.slug} agent={agent} />
            ))}
          </div>
        )}
      </div>
    </div>
  )
}
