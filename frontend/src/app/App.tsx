import { Compass } from '@/components/icons'
import { lazy, Suspense } from 'react'
import { Link, Route, Routes } from 'react-router'
import { EmptyState, ErrorState } from '@/components/common/States'
import { Skeleton } from '@/components/ui/skeleton'
import { AgentsPage } from '@/features/agents/AgentsPage'
import { HistoryPage } from '@/features/history/HistoryPage'
import { RegistryPage } from '@/features/registry/RegistryPage'
import { Shell } from '@/features/shell/Shell'
import { SpendPage } from '@/features/spend/SpendPage'

// Loaded when first opened, each in a chunk of its own: the first load stays within its budget
// (scripts/bundle-size.mjs). A chunk that cannot be fetched (a newer build replaced it) says so.
const unavailable = (what: string) => ({
  default: () => <ErrorState error={`${what} could not be loaded: reload the page.`} retry={() => window.location.reload()} />,
})
const ComparePage = lazy(() =>
  import('@/features/compare/ComparePage').then((module) => ({ default: module.ComparePage }), () => unavailable('The comparison')),
)
// The playground carries the markdown renderer, the tool cards and the stream: the agents page, the
// first one most visits open, does without them.
const PlaygroundPage = lazy(() =>
  import('@/features/playground/PlaygroundPage').then((module) => ({ default: module.PlaygroundPage }), () => unavailable('The playground')),
)
const MemoryPage = lazy(() => import('@/features/memory/MemoryPage').catch(() => unavailable('The Memory page')))
const RulesPage = lazy(() => import('@/features/rules/RulesPage').catch(() => unavailable('The Rules page')))
const TasksPage = lazy(() => import('@/features/tasks/TasksPage').catch(() => unavailable('The Tasks page')))
const EvalsPage = lazy(() => import('@/features/evals/EvalsPage').catch(() => unavailable('The Evals page')))
const WorkflowsPage = lazy(() => import('@/features/workflows/WorkflowsPage').catch(() => unavailable('The Workflows page')))
const SourcesPage = lazy(() => import('@/features/retrieval/SourcesPage').catch(() => unavailable('The Sources page')))
const TracesPage = lazy(() => import('@/features/traces/TracesPage').catch(() => unavailable('The Traces page')))
const TracePage = lazy(() => import('@/features/traces/TracePage').catch(() => unavailable('The trace')))

function NotFound() {
  return (
    <EmptyState icon={<Compass />} title="Nothing here" className="my-auto">
      <p>
        This page does not exist. <Link to="/" className="text-primary hover:underline">Back to the agents</Link>
      </p>
    </EmptyState>
  )
}

export function App() {
  return (
    <Routes>
        <Route element={<Shell />}>
          <Route index element={<AgentsPage />} />
          <Route path="agents" element={<AgentsPage />} />
          <Route
            path="agents/:slug/*"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <PlaygroundPage />
              </Suspense>
            }
          />
          <Route path="history" element={<HistoryPage />} />
          <Route
            path="compare"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <ComparePage />
              </Suspense>
            }
          />
          <Route path="registry/:kind?" element={<RegistryPage />} />
          <Route path="spend" element={<SpendPage />} />
          <Route
            path="tasks"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <TasksPage />
              </Suspense>
            }
          />
          <Route
            path="traces"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <TracesPage />
              </Suspense>
            }
          />
          <Route
            path="traces/:runId"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <TracePage />
              </Suspense>
            }
          />
          <Route
            path="rules"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <RulesPage />
              </Suspense>
            }
          />
          <Route
            path="memory"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <MemoryPage />
              </Suspense>
            }
          />
          <Route
            path="evals/*"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <EvalsPage />
              </Suspense>
            }
          />
          <Route
            path="workflows/*"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <WorkflowsPage />
              </Suspense>
            }
          />
          <Route
            path="sources/*"
            element={
              <Suspense fallback={<Skeleton className="m-6 h-40" />}>
                <SourcesPage />
              </Suspense>
            }
          />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
  )
}
