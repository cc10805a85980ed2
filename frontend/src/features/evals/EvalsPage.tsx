// /evals — datasets of test cases and the runs that judged agents on them: the list, one dataset,
// one run, and two runs compared. Loaded on its own when first opened (App.tsx).
import { FlaskConical, Plus } from '@/components/icons'
import { useState } from 'react'
import { Link, Route, Routes, useNavigate } from 'react-router'
import { EmptyState, PageHeader } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { Loading } from '@/features/spend/Loading'
import { formatRelative } from '@/lib/format'
import { ComparePage } from './ComparePage'
import { DatasetPage } from './DatasetPage'
import { NewDatasetDialog } from './NewDatasetDialog'
import { useDatasets, useRuns } from './queries'
import { RunPage } from './RunPage'
import { RunsTable } from './RunsTable'

export const datasetPath = (key: string) => `/evals/datasets/${encodeURIComponent(key)}`

function NoDatasets({ onNew }: { onNew: () => void }) {
  return (
    <EmptyState icon={<FlaskConical />} title="No datasets yet">
      <p>
        A dataset is a list of test cases: a message to send, what the answer should be, and the evaluators that judge it. Save any turn of a
        conversation with <strong>Test case</strong> under its answer, or import a pydantic-evals file:
      </p>
      <code className="block rounded-md bg-muted/60 px-3 py-2 font-mono text-xs text-foreground">synapse eval import cases.yaml --key support</code>
      <Button size="sm" onClick={onNew}>
        <Plus /> New dataset
      </Button>
    </EmptyState>
  )
}

function Datasets() {
  const datasets = useDatasets()
  const runs = useRuns(null)
  const navigate = useNavigate()
  const [creating, setCreating] = useState(false)
  const list = datasets.data?.datasets
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="evals-page">
      <PageHeader
        title="Evals"
        description="Test cases from real conversations, run against agents and models, compared run by run."
        actions={
          <Button size="sm" onClick={() => setCreating(true)}>
            <Plus /> New dataset
          </Button>
        }
      />
      <div className="space-y-6 px-6 py-4">
        <Loading resource={datasets} />
        {list?.length === 0 && <NoDatasets onNew={() => setCreating(true)} />}
        {list && list.length > 0 && (
          <Table aria-label="Datasets">
            <TableHeader>
              <TableRow>
                <TableHead>Dataset</TableHead>
                <TableHead>Key</TableHead>
                <TableHead className="text-right">Cases</TableHead>
                <TableHead className="text-right">Version</TableHead>
                <TableHead>Tags</TableHead>
                <TableHead className="text-right">Changed</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {list.map((dataset) => (
                <TableRow key={dataset.key} data-testid="eval-dataset-row">
                  <TableCell>
                    <Link to={datasetPath(dataset.key)} className="font-medium text-primary hover:underline">
                      {dataset.name}
                    </Link>
                  </TableCell>
                  <TableCell className="font-mono text-xs">{dataset.key}</TableCell>
                  <TableCell className="text-right font-mono text-xs">{dataset.case_count}</TableCell>
                  <TableCell className="text-right font-mono text-xs">v{dataset.version}</TableCell>
                  <TableCell>
                    <div className="flex flex-wrap gap-1">
                      {dataset.tags.map((tag) => (
                        <Badge key={tag} variant="outline">
                          {tag}
                        </Badge>
                      ))}
                    </div>
                  </TableCell>
                  <TableCell className="text-right text-xs text-muted-foreground">{formatRelative(dataset.updated_at)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
        {runs.data && runs.data.runs.length > 0 && (
          <section aria-label="Recent runs" className="space-y-2">
            <h2 className="text-sm font-semibold">Recent runs</h2>
            <RunsTable runs={runs.data.runs} showDataset />
          </section>
        )}
      </div>
      <NewDatasetDialog
        open={creating}
        onDone={(created) => {
          setCreating(false)
          if (created) navigate(datasetPath(created.key))
        }}
      />
    </div>
  )
}

export default function EvalsPage() {
  return (
    <Routes>
      <Route index element={<Datasets />} />
      <Route path="datasets/:key" element={<DatasetPage />} />
      <Route path="runs/:id" element={<RunPage />} />
      <Route path="compare" element={<ComparePage />} />
    </Routes>
  )
}
