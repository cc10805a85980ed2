// /workflows — JSON multi-agent workflows: the list, one workflow (its definition with the picture
// of its steps and its problems inline, its versions with what each changed, its runs) and one
// run's step timeline. Loaded on its own when first opened (App.tsx).
import { Plus, Workflow as WorkflowIcon } from '@/components/icons'
import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams, useSearchParams } from 'react-router'
import { EmptyState, PageHeader } from '@/components/common/States'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { Loading } from '@/features/spend/Loading'
import { cn } from '@/lib/cn'
import { formatRelative } from '@/lib/format'
import { DefinitionEditor } from './DefinitionEditor'
import { NewWorkflowDialog } from './NewWorkflowDialog'
import { useWorkflow, useWorkflows } from './queries'
import { WorkflowRunPage } from './RunPage'
import { RunsPanel } from './RunsPanel'
import { VersionsPanel } from './VersionsPanel'

export const workflowPath = (key: string) => `/workflows/${encodeURIComponent(key)}`

function WorkflowList() {
  const workflows = useWorkflows()
  const navigate = useNavigate()
  const [creating, setCreating] = useState(false)
  const list = workflows.data?.workflows
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="workflows-page">
      <PageHeader
        title="Workflows"
        description="Agent steps in order, declared as JSON, checked before they run and versioned like data."
        actions={
          <Button size="sm" onClick={() => setCreating(true)}>
            <Plus /> New workflow
          </Button>
        }
      />
      <div className="px-6 py-4">
        <Loading resource={workflows} />
        {list?.length === 0 && (
          <EmptyState icon={<WorkflowIcon />} title="No workflows yet">
            <p>A workflow runs agents one after another, each step's message made from the run's input and the steps before it.</p>
            <code className="block rounded-md bg-muted/60 px-3 py-2 font-mono text-xs text-foreground">synapse workflows validate workflow.json</code>
            <Button size="sm" onClick={() => setCreating(true)}>
              <Plus /> New workflow
            </Button>
          </EmptyState>
        )}
        {list && list.length > 0 && (
          <Table aria-label="Workflows">
            <TableHeader>
              <TableRow>
                <TableHead>Workflow</TableHead>
                <TableHead>Key</TableHead>
                <TableHead className="text-right">Steps</TableHead>
                <TableHead className="text-right">Version</TableHead>
                <TableHead className="text-right">Changed</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {list.map((workflow) => (
                <TableRow key={workflow.key} data-testid="workflow-row">
                  <TableCell>
                    <Link to={workflowPath(workflow.key)} className="font-medium text-primary hover:underline">
                      {workflow.name}
                    </Link>
                  </TableCell>
                  <TableCell className="font-mono text-xs">{workflow.key}</TableCell>
                  <TableCell className="text-right font-mono text-xs">{workflow.step_count}</TableCell>
                  <TableCell className="text-right font-mono text-xs">v{workflow.version}</TableCell>
                  <TableCell className="text-right text-xs text-muted-foreground">{formatRelative(workflow.updated_at)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </div>
      <NewWorkflowDialog
        open={creating}
        onDone={(created) => {
          setCreating(false)
          if (created) navigate(workflowPath(created.key))
        }}
      />
    </div>
  )
}

const TABS = [
  ['definition', 'Definition'],
  ['versions', 'Versions'],
  ['runs', 'Runs'],
] as const

function WorkflowDetail() {
  const key = useParams().key ?? ''
  const workflow = useWorkflow(key)
  const [params, setParams] = useSearchParams()
  const tab = TABS.find(([name]) => name === params.get('tab'))?.[0] ?? 'definition'
  const data = workflow.data
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="workflow-page">
      <PageHeader
        title={data?.name ?? key}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <Link to="/workflows" className="text-primary hover:underline">
              Workflows
            </Link>
            <span className="font-mono">
              {key}
              {data && ` v${data.version}`}
            </span>
            {data?.is_sandbox && <Badge variant="warning">sandbox</Badge>}
            {data?.description && <span>{data.description}</span>}
          </span>
        }
      />
      <div className="space-y-4 px-6 py-4">
        <nav role="tablist" aria-label="Workflow" className="flex gap-1 border-b">
          {TABS.map(([name, label]) => (
            <button
              key={name}
              type="button"
              role="tab"
              aria-selected={tab === name}
              onClick={() => setParams(name === 'definition' ? {} : { tab: name })}
              className={cn('-mb-px cursor-pointer border-b-2 px-3 py-1.5 text-sm', tab === name ? 'border-primary font-medium' : 'border-transparent text-muted-foreground')}
            >
              {label}
            </button>
          ))}
        </nav>
        <Loading resource={workflow} />
        {data && tab === 'definition' && <DefinitionEditor key={data.key} workflow={data} />}
        {data && tab === 'versions' && <VersionsPanel workflowKey={key} />}
        {data && tab === 'runs' && <RunsPanel workflowKey={key} />}
      </div>
    </div>
  )
}

export default function WorkflowsPage() {
  return (
    <Routes>
      <Route index element={<WorkflowList />} />
      <Route path="runs/:id" element={<WorkflowRunPage />} />
      <Route path=":key" element={<WorkflowDetail />} />
    </Routes>
  )
}
