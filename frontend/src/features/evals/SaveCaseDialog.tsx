// "Save as test case" on a stored answer: the turn becomes a case of a dataset (an existing one, or
// a new one named here) with its question as the message, optionally the conversation before it,
// the answer as the expected output or as a reference for a judge, and the evaluators to apply in
// pydantic-evals' own form. Loaded when first pressed, so the playground stays small.
import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { box, Field } from '@/features/rules/Field'
import { cn } from '@/lib/cn'
import { invalidate } from '@/lib/resource'
import { evalsApi, type CaseFromMessage, type Dataset } from './api'
import { useDatasets, useEvaluators } from './queries'

const NEW = '\u0000new'
type Expected = CaseFromMessage['expected']

const EXPECTED: [Expected, string][] = [
  ['output', 'The answer is the expected output'],
  ['reference', 'The answer is a reference for a judge'],
  ['none', 'Nothing expected: the evaluators decide'],
]

const DEFAULT_EVALUATORS: Record<Expected, string> = {
  output: '["EqualsExpected"]',
  reference: '[]',
  none: '[]',
}

/** The evaluators typed, as a list; a message when they are not a JSON list. */
export function parseEvaluators(text: string): unknown[] | string {
  if (!text.trim()) return []
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? parsed : 'Write the evaluators as a JSON list, e.g. ["EqualsExpected", {"Contains": "refund"}].'
  } catch {
    return 'Write the evaluators as a JSON list, e.g. ["EqualsExpected", {"Contains": "refund"}].'
  }
}

/** The evaluators a case may name, each adding itself to the list when pressed. */
function KnownEvaluators({ onPick }: { onPick: (name: string) => void }) {
  const known = useEvaluators().data?.evaluators.filter((evaluator) => !evaluator.problem) ?? []
  if (!known.length) return null
  return (
    <div className="flex flex-wrap items-center gap-1 text-xs text-muted-foreground" aria-label="Known evaluators">
      Add:
      {known.map((evaluator) => (
        <button
          key={evaluator.name}
          type="button"
          title={evaluator.description || undefined}
          onClick={() => onPick(evaluator.name)}
          className="cursor-pointer rounded border px-1 font-mono text-[11px] hover:bg-muted hover:text-foreground"
        >
          {evaluator.name}
        </button>
      ))}
    </div>
  )
}

/** `text` (a JSON list of evaluators) with `name` added, its arguments left for the user to fill. */
export function withEvaluator(text: string, name: string, needsArguments: boolean): string {
  const parsed = parseEvaluators(text)
  const list = typeof parsed === 'string' ? [] : parsed
  return JSON.stringify([...list, needsArguments ? { [name]: {} } : name])
}

function SaveCaseForm({ messageId, onDone }: { messageId: string; onDone: () => void }) {
  const datasets = useDatasets()
  const [target, setTarget] = useState('')
  const [newKey, setNewKey] = useState('')
  const [name, setName] = useState('')
  const [expected, setExpected] = useState<Expected>('output')
  const [history, setHistory] = useState(false)
  const [evaluators, setEvaluators] = useState(DEFAULT_EVALUATORS.output)
  const [message, setMessage] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const [saved, setSaved] = useState<{ dataset: Dataset; name: string } | null>(null)
  const list = datasets.data?.datasets ?? []
  const known = useEvaluators().data?.evaluators ?? []
  const requiresArguments = (name: string) => known.find((evaluator) => evaluator.name === name)?.arguments.some((argument) => argument.required) ?? false
  const chosen = target || (list.length ? (list[0]?.key ?? NEW) : NEW)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const parsed = parseEvaluators(evaluators)
    if (typeof parsed === 'string') return setMessage(parsed)
    setSaving(true)
    setMessage(null)
    try {
      const key = chosen === NEW ? newKey.trim() : chosen
      if (chosen === NEW) await evalsApi.create({ key, name: key })
      const dataset = await evalsApi.caseFromMessage(key, {
        message_id: messageId,
        name: name.trim() || null,
        expected,
        include_history: history,
        evaluators: parsed,
      })
      invalidate('evals:')
      setSaved({ dataset, name: String(dataset.cases.at(-1)?.name ?? '') })
    } catch (error) {
      setMessage(messageOf(error))
      setSaving(false)
    }
  }

  if (saved)
    return (
      <div className="grid gap-4" role="status">
        <DialogTitle>Saved as a test case</DialogTitle>
        <p className="text-sm">
          <strong>{saved.name}</strong> is case {saved.dataset.cases.length} of{' '}
          <Link to={`/evals/datasets/${encodeURIComponent(saved.dataset.key)}`} className="text-primary hover:underline" onClick={onDone}>
            {saved.dataset.name}
          </Link>{' '}
          (version {saved.dataset.version}).
        </p>
        <DialogFooter>
          <Button onClick={onDone}>Done</Button>
        </DialogFooter>
      </div>
    )

  return (
    <form onSubmit={submit} aria-label="Save as test case" className="grid min-w-0 gap-4" noValidate>
      <DialogTitle>Save as test case</DialogTitle>
      <Field label="Dataset">
        {(aria) => (
          <select {...aria} value={chosen} onChange={(event) => setTarget(event.target.value)} className={box}>
            {list.map((dataset) => (
              <option key={dataset.key} value={dataset.key}>
                {dataset.name} ({dataset.case_count} cases)
              </option>
            ))}
            <option value={NEW}>New dataset…</option>
          </select>
        )}
      </Field>
      {chosen === NEW && (
        <Field label="New dataset key" hint="Lowercase letters, digits, - and _, e.g. support-regressions">
          {(aria) => <input {...aria} value={newKey} onChange={(event) => setNewKey(event.target.value)} className={cn(box, 'font-mono')} autoComplete="off" />}
        </Field>
      )}
      <Field label="Case name" hint="By default the question, shortened.">
        {(aria) => <input {...aria} value={name} maxLength={200} onChange={(event) => setName(event.target.value)} className={box} autoComplete="off" />}
      </Field>
      <fieldset className="grid gap-1.5">
        <legend className="mb-1 text-[13px] font-medium">The answer</legend>
        {EXPECTED.map(([value, label]) => (
          <label key={value} className="flex items-center gap-2 text-sm">
            <input
              type="radio"
              name="expected"
              checked={expected === value}
              onChange={() => {
                if (evaluators === DEFAULT_EVALUATORS[expected]) setEvaluators(DEFAULT_EVALUATORS[value])
                setExpected(value)
              }}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={history} onChange={(event) => setHistory(event.target.checked)} />
        Send the conversation before the question too
      </label>
      <Field label="Evaluators" hint='pydantic-evals form, e.g. ["EqualsExpected", {"Contains": "refund"}, {"ToolCalled": "lookup_order"}]'>
        {(aria) => <textarea {...aria} value={evaluators} rows={3} onChange={(event) => setEvaluators(event.target.value)} className={cn(box, 'h-auto resize-y py-2 font-mono text-xs')} />}
      </Field>
      <KnownEvaluators onPick={(name) => setEvaluators(withEvaluator(evaluators, name, requiresArguments(name)))} />
      {message && (
        <p role="alert" className="text-xs text-destructive">
          {message}
        </p>
      )}
      <DialogFooter>
        <Button variant="ghost" onClick={onDone} disabled={saving}>
          Cancel
        </Button>
        <Button type="submit" disabled={saving}>
          Save case
        </Button>
      </DialogFooter>
    </form>
  )
}

/** The "Save as test case" dialog for the turn of the stored answer `messageId`. */
export default function SaveCaseDialog({ messageId, open, onClose }: { messageId: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()} label="Save as test case" className="max-h-[90vh] max-w-lg overflow-y-auto">
      {open && <SaveCaseForm messageId={messageId} onDone={onClose} />}
    </Dialog>
  )
}
