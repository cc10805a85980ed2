// The definition as JSON, with the picture of its steps beside it. Check asks the server to
// validate it (unknown agents, paths that point at nothing or cannot resolve against a step's
// output schema) and shows each problem inline, naming the step and the path; Save writes the next
// version (refused when someone else saved first).
import { Check } from '@/components/icons'
import { useMemo, useState } from 'react'
import { messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { ApiError } from '@/lib/api/client'
import { invalidate } from '@/lib/resource'
import { workflowsApi, type Workflow } from './api'
import { parsed, shown, viewOf } from './definition'
import { StepsPicture } from './StepsPicture'

interface Problem {
  where: string
  message: string
}

/** A 422's field errors as the editor lists them (`steps.1.input_mapping.text`); else its message. */
export function problemsOf(error: unknown): Problem[] {
  if (error instanceof ApiError && error.fields.length)
    return error.fields.map(({ location, message }) => ({ where: location.replace(/^body\.definition\.?/, '') || 'definition', message }))
  return [{ where: 'definition', message: messageOf(error) }]
}

export function DefinitionEditor({ workflow }: { workflow: Workflow }) {
  const [text, setText] = useState(() => shown(workflow.definition))
  const [problems, setProblems] = useState<Problem[] | null>(null)
  const [busy, setBusy] = useState(false)
  const current = parsed(text)
  const view = useMemo(() => viewOf(typeof current === 'string' ? workflow.definition : current), [current, workflow.definition])
  const changed = text !== shown(workflow.definition)

  const act = async (save: boolean) => {
    if (typeof current === 'string') return setProblems([{ where: 'definition', message: current }])
    setBusy(true)
    try {
      if (save) {
        const saved = await workflowsApi.update(workflow.key, { version: workflow.version, definition: current })
        setText(shown(saved.definition))
        invalidate('workflows:')
      } else await workflowsApi.validate(current)
      setProblems([])
    } catch (error) {
      setProblems(problemsOf(error))
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="grid min-w-0 gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <div className="min-w-0 space-y-2">
        <textarea
          aria-label="Definition"
          value={text}
          spellCheck={false}
          onChange={(event) => {
            setText(event.target.value)
            setProblems(null)
          }}
          rows={Math.min(30, Math.max(12, text.split('\n').length + 1))}
          className="w-full resize-y rounded-md border bg-transparent p-3 font-mono text-xs focus-visible:outline-2 focus-visible:outline-ring"
        />
        {problems && problems.length > 0 && (
          <ul role="alert" aria-label="Problems" className="space-y-1 rounded-md border border-destructive/40 p-2 text-xs">
            {problems.map((problem, index) => (
              <li key={index} data-testid="definition-problem">
                <span className="font-mono text-destructive">{problem.where}</span>: {problem.message}
              </li>
            ))}
          </ul>
        )}
        {problems && problems.length === 0 && (
          <p role="status" className="flex items-center gap-1 text-xs text-success">
            <Check className="size-3" /> {changed ? 'The definition is valid.' : `Saved as version ${workflow.version}.`}
          </p>
        )}
        <div className="flex gap-2">
          <Button size="sm" variant="outline" disabled={busy} onClick={() => act(false)}>
            Check
          </Button>
          <Button size="sm" disabled={busy || !changed} onClick={() => act(true)}>
            Save as version {workflow.version + 1}
          </Button>
          {changed && (
            <Button size="sm" variant="ghost" disabled={busy} onClick={() => (setText(shown(workflow.definition)), setProblems(null))}>
              Undo changes
            </Button>
          )}
        </div>
      </div>
      <StepsPicture view={view} />
    </div>
  )
}
