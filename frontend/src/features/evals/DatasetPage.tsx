// /evals/datasets/:key — one dataset: its cases, its runs (tick two to compare), its versions,
// and the Run dialog (one model, or several side by side).
import { FileText, Play, Trash2 } from '@/components/icons'
import { useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { EmptyState, PageHeader } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button, buttonVariants } from '@/components/ui/button'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { Loading } from '@/features/spend/Loading'
import { apiUrl } from '@/lib/base'
import { formatRelative } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { evalsApi, type Run } from './api'
import { CasesTable } from './CasesTable'
import { useDataset, useRuns, useVersions } from './queries'
import { runPath, RunsTable } from './RunsTable'
import { StartRunDialog } from './StartRunDialog'

function Versions({ datasetKey }: { datasetKey: string }) {
  const versions = useVersions(datasetKey)
  return (
    <ol className="space-y-1 text-xs" aria-label="Versions">
      {versions.data?.versions.map((version) => (
        <li key={version.version} className="flex gap-2">
          <span className="w-8 font-mono">v{version.version}</span>
          <span className="flex-1 truncate">{version.change}</span>
          <span className="text-muted-foreground">{version.case_count} cases</span>
          <span className="text-muted-foreground">{formatRelative(version.created_at)}</span>
        </li>
      ))}
    </ol>
  )
}

export function DatasetPage() {
  const key = useParams().key ?? ''
  const dataset = useDataset(key)
  const runs = useRuns(key)
  const navigate = useNavigate()
  const [running, setRunning] = useState(false)
  const [deleting, setDeleting] = useState(false)
  const data = dataset.data
  const started = (created: Run[]) => {
    setRunning(false)
    if (created.length === 1 && created[0]) navigate(runPath(created[0].id))
  }
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="eval-dataset-page">
      <PageHeader
        title={data ? data.name : key}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <Link to="/evals" className="text-primary hover:underline">
              Evals
            </Link>
            <span className="font-mono">
              {key}
              {data && ` v${data.version}`}
            </span>
            {data?.tags.map((tag) => (
              <Badge key={tag} variant="outline">
                {tag}
              </Badge>
            ))}
            {data?.description && <span>{data.description}</span>}
          </span>
        }
        actions={
          data && (
            <>
              <Button size="sm" variant="ghost" onClick={() => setDeleting(true)} aria-label="Delete the dataset">
                <Trash2 />
              </Button>
              <a
                href={apiUrl(`/api/evals/datasets/${encodeURIComponent(key)}/export`)}
                download={`${key}.yaml`}
                className={buttonVariants({ size: 'sm', variant: 'outline' })}
                title="The dataset as a pydantic-evals YAML file"
              >
                <FileText /> Export
              </a>
              <Button size="sm" onClick={() => setRunning(true)} disabled={data.cases.length === 0}>
                <Play /> Run
              </Button>
            </>
          )
        }
      />
      <div className="space-y-6 px-6 py-4">
        <Loading resource={dataset} />
        {data && data.cases.length === 0 && (
          <EmptyState icon={<Play />} title="No cases yet">
            <p>
              Save a turn of a conversation with <strong>Test case</strong> under its answer, or add cases from the command line:
            </p>
            <code className="block rounded-md bg-muted/60 px-3 py-2 font-mono text-xs text-foreground">synapse eval add-case {key} --message "Where is order A-1001?" --contains A-1001</code>
          </EmptyState>
        )}
        {data && data.cases.length > 0 && (
          <section aria-label="Cases" className="space-y-2">
            <h2 className="text-sm font-semibold">Cases</h2>
            <CasesTable cases={data.cases} />
          </section>
        )}
        <section aria-label="Runs" className="space-y-2">
          <h2 className="text-sm font-semibold">Runs</h2>
          {runs.data && runs.data.runs.length === 0 && <p className="text-sm text-muted-foreground">Not run yet.</p>}
          {runs.data && runs.data.runs.length > 0 && <RunsTable runs={runs.data.runs} />}
        </section>
        <section aria-label="Versions" className="space-y-2">
          <h2 className="text-sm font-semibold">Versions</h2>
          <Versions datasetKey={key} />
        </section>
      </div>
      {data && <StartRunDialog dataset={data} open={running} onDone={started} />}
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title="Delete this dataset?"
        description={`${key} and all its versions are deleted; its runs stay readable.`}
        confirmLabel="Delete"
        onConfirm={async () => {
          await evalsApi.remove(key)
          invalidate('evals:')
          navigate('/evals')
        }}
      />
    </div>
  )
}
