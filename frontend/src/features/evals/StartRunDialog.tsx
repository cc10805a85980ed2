// Run a dataset: pick the agent and one or more models (its own, those its selector offers, or any
// model id typed in) or registry presets (a model with its settings); one run each, side by side, on
// the task queue. The server's refusals show above the buttons.
import { useState, type FormEvent } from 'react'
import { messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Dialog, DialogFooter, DialogTitle } from '@/components/ui/dialog'
import { box, Field } from '@/features/rules/Field'
import { useAgents, useModels, useRegistry } from '@/lib/queries'
import { invalidate } from '@/lib/resource'
import { evalsApi, type Dataset, type Run } from './api'

/** The agent a dataset's cases were saved from (the first case that says), for a first choice. */
function sourceAgent(dataset: Dataset): string {
  for (const entry of dataset.cases) {
    const source = (entry.metadata as { source?: { agent_key?: unknown } } | undefined)?.source
    if (typeof source?.agent_key === 'string') return source.agent_key
  }
  return ''
}

function ModelChoices({ agent, picked, onToggle }: { agent: string; picked: (string | null)[]; onToggle: (model: string | null) => void }) {
  const models = useModels(agent)
  const offered = models.data?.models.filter((model) => model.available) ?? []
  const choice = (model: string | null, label: string) => (
    <label key={model ?? ''} className="flex items-center gap-2 text-sm">
      <input type="checkbox" checked={picked.includes(model)} onChange={() => onToggle(model)} />
      {label}
    </label>
  )
  return (
    <fieldset className="grid gap-1.5">
      <legend className="mb-1 text-[13px] font-medium">Models</legend>
      {choice(null, "The agent's own model")}
      {offered.map((model) => choice(model.id, model.label === model.id ? model.id : `${model.label} (${model.id})`))}
    </fieldset>
  )
}

function PresetChoices({ picked, onToggle }: { picked: string[]; onToggle: (preset: string) => void }) {
  const presets = useRegistry('presets')
  if (!presets.data?.length) return null
  return (
    <fieldset className="grid gap-1.5">
      <legend className="mb-1 text-[13px] font-medium">Presets</legend>
      {presets.data.map((preset) => (
        <label key={preset.key} className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={picked.includes(preset.key)} onChange={() => onToggle(preset.key)} />
          {preset.name || preset.key} <span className="font-mono text-xs text-muted-foreground">{preset.model}</span>
        </label>
      ))}
    </fieldset>
  )
}

function StartRunForm({ dataset, onDone }: { dataset: Dataset; onDone: (runs: Run[]) => void }) {
  const agents = useAgents()
  const [agent, setAgent] = useState(() => sourceAgent(dataset))
  const [picked, setPicked] = useState<(string | null)[]>([null])
  const [presets, setPresets] = useState<string[]>([])
  const [extra, setExtra] = useState('')
  const [label, setLabel] = useState('')
  const [concurrency, setConcurrency] = useState('4')
  const [message, setMessage] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const toggle = (model: string | null) => setPicked((now) => (now.includes(model) ? now.filter((one) => one !== model) : [...now, model]))

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const typed = extra
      .split(',')
      .map((model) => model.trim())
      .filter((model) => model && !picked.includes(model))
    const models = [...picked, ...typed]
    if (!agent) return setMessage('Pick the agent to run.')
    if (!models.length && !presets.length) return setMessage('Pick at least one model or preset.')
    setSaving(true)
    setMessage(null)
    try {
      const started = await evalsApi.start({ dataset: dataset.key, agent, models, presets, label: label.trim() || null, concurrency: Number(concurrency) || 4 })
      invalidate('evals:runs')
      onDone(started.runs)
    } catch (error) {
      setMessage(messageOf(error))
      setSaving(false)
    }
  }

  return (
    <form onSubmit={submit} aria-label="Run the dataset" className="grid min-w-0 gap-4" noValidate>
      <DialogTitle>
        Run {dataset.name} <span className="font-mono text-xs text-muted-foreground">v{dataset.version}</span>
      </DialogTitle>
      <Field label="Agent" hint="Each case is sent to it as a new conversation (origin eval).">
        {(aria) => (
          <select {...aria} value={agent} onChange={(event) => setAgent(event.target.value)} className={box}>
            <option value="">Choose an agent…</option>
            {agents.data?.agents.map((card) => (
              <option key={card.slug} value={card.slug}>
                {card.label || card.name} ({card.slug})
              </option>
            ))}
            {agent && !agents.data?.agents.some((card) => card.slug === agent) && <option value={agent}>{agent}</option>}
          </select>
        )}
      </Field>
      {agent && <ModelChoices agent={agent} picked={picked} onToggle={toggle} />}
      <PresetChoices picked={presets} onToggle={(preset) => setPresets((now) => (now.includes(preset) ? now.filter((one) => one !== preset) : [...now, preset]))} />
      <Field label="Other models" hint="Model ids, comma-separated (e.g. openai:gpt-5-mini); each runs too.">
        {(aria) => <input {...aria} value={extra} onChange={(event) => setExtra(event.target.value)} className={`${box} font-mono`} autoComplete="off" />}
      </Field>
      <div className="grid gap-3 sm:grid-cols-[1fr_8rem]">
        <Field label="Label" hint="Optional: a branch or a prompt version; each run adds its model.">
          {(aria) => <input {...aria} value={label} maxLength={150} onChange={(event) => setLabel(event.target.value)} className={box} autoComplete="off" />}
        </Field>
        <Field label="At once" hint="Cases run together.">
          {(aria) => <input {...aria} value={concurrency} inputMode="numeric" onChange={(event) => setConcurrency(event.target.value)} className={box} />}
        </Field>
      </div>
      {message && (
        <p role="alert" className="text-xs text-destructive">
          {message}
        </p>
      )}
      <DialogFooter>
        <Button variant="ghost" onClick={() => onDone([])} disabled={saving}>
          Cancel
        </Button>
        <Button type="submit" disabled={saving}>
          {picked.length + presets.length + (extra.trim() ? 1 : 0) > 1 ? 'Run side by side' : 'Run'}
        </Button>
      </DialogFooter>
    </form>
  )
}

/** The dialog that starts runs of `dataset`; `onDone` gets the runs started (none: cancelled). */
export function StartRunDialog({ dataset, open, onDone }: { dataset: Dataset; open: boolean; onDone: (runs: Run[]) => void }) {
  return (
    <Dialog open={open} onOpenChange={(next) => !next && onDone([])} label="Run the dataset" className="max-h-[90vh] max-w-xl overflow-y-auto">
      {open && <StartRunForm dataset={dataset} onDone={onDone} />}
    </Dialog>
  )
}
