import { Compass } from '@/components/icons'
import { Link, Route, Routes } from 'react-router'
import { EmptyState } from '@/components/common/States'
import { AgentsPage } from '@/features/agents/AgentsPage'
import { ComparePage } from '@/features/compare/ComparePage'
import { HistoryPage } from '@/features/history/HistoryPage'
import { PlaygroundPage } from '@/features/playground/PlaygroundPage'
import { RegistryPage } from '@/features/registry/RegistryPage'
import { Shell } from '@/features/shell/Shell'
import { SpendPage } from '@/features/spend/SpendPage'

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
          <Route path="agents/:slug/*" element={<PlaygroundPage />} />
          <Route path="history" element={<HistoryPage />} />
          <Route path="compare" element={<ComparePage />} />
          <Route path="registry/:kind?" element={<RegistryPage />} />
          <Route path="spend" element={<SpendPage />} />
          <Route path="*" element={<NotFound />} />
        </Route>
      </Routes>
  )
}
