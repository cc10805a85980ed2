// A new workflow: its key, its name and a first definition (a one-step example to edit), checked by
// the server when it is created.
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { box, Field } from '@/features/rules/Field'
import { invalidate } from '@/lib/resource'
import { workflowsApi, type Workflow } from './api'
import { problemsOf } from './DefinitionEditor'
import { parsed } from './definition'

export const STARTER = `{
  "version": 1,
  "steps": [
    {"name": "answer", "agent_name": "", "input_mapping": {"message": "$.input.message"}}
  ],
  "outputs": {"final": "$.steps.answer.output.answer"}
}`

function NewWorkflowForm({ onDone }: { onDone: (created: Workflow | null) => void }) {
  const [key, setKey] = useState('')
  const [name, setName] = useState('')
  const [text, setText] = useState(STARTER)
  const [problems, setProblems] = useState<string[]>([])
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const definition = parsed(text)
    if (typeof definition === 'string') return setProblems([definition])
    setBusy(true)
    try {
      const created = await workflowsApi.create({ key: key.trim(), name: name.trim() || key.trim(), definition })
      invalidate('workflows:')
      onDone(created)
    } catch (error) {
      setProblems(problemsOf(error).map((problem) => `${problem.where}: ${problem.message}`))
      setBusy(false)
    }
  }
  return (
    <form onSubmit={submit} aria-label="New workflow" className="grid gap-4" noValidate>
      <DialogTitle>New workflow</DialogTitle>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Key" hint="Lowercase letters, digits, - and _">
          {(aria) => <input {...aria} value={key} onChange={(event) => setKey(event.target.value)} className={`${box} font-mono`} autoComplete="off" />}
        </Field>
        <Field label="Name" hint="The key when empty">
          {(aria) => <input {...aria} value={name} onChange={(event) => setName(event.target.value)} className={box} autoComplete="off" />}
        </Field>
      </div>
      <label className="grid gap-1 text-[13px] font-medium">
        Definition
        <textarea
          value={text}
          onChange={(event) => setText(event.target.value)}
          rows={10}
          spellCheck={false}
          className="rounded-md border bg-transparent p-2 font-mono text-xs font-normal focus-visible:outline-2 focus-visible:outline-ring"
        />
      </label>
      {problems.length > 0 && (
        <ul role="alert" className="space-y-1 text-xs text-destructive">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      <DialogFooter>
        <Button variant="ghost" onClick={() => onDone(null)} disabled={busy}>
          Cancel
        </Button>
        <Button type="submit" disabled={busy}>
          Create
        </Button>
      </DialogFooter>
    </form>
  )
}

export function NewWorkflowDialog({ open, onDone }: { open: boolean; onDone: (created: Workflow | null) => void }) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onDone(null)} label="New workflow" className="max-h-[90vh] max-w-2xl overflow-y-auto">
      {open && <NewWorkflowForm onDone={onDone} />}
    </Dialog>
  )
}
