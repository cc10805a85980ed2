// What the registry forms offer to choose from, loaded only for the form that is open.
import { api } from '@/lib/api/client'
import type { EntryKind } from '@/lib/api/registry'
import { useAgents, useRegistry, useRegistryTools } from '@/lib/queries'
import { useResource } from '@/lib/resource'
import type { Option } from '@/components/ui/multi-select'
import type { Choices } from './Field'
import { PROVIDER_KINDS } from './form'

/** Options without repeats, the first of each value kept. */
function unique(options: Option[]): Option[] {
  const seen = new Set<string>()
  return options.filter((option) => !seen.has(option.value) && seen.add(option.value))
}

export function useChoices(kind: EntryKind, open: boolean): Choices {
  const providers = useRegistry('providers', false, open && kind === 'models')
  const models = useRegistry('models', false, open && kind === 'presets')
  const presets = useRegistry('presets', true, open && kind === 'agents')
  const tones = useRegistry('tones', false, open && kind === 'agents')
  const tools = useRegistryTools(open && kind === 'agents')
  // The model selector's ids (the demo model, the `models` setting, providers with a key) are the
  // same for every agent but its own model: any agent's list serves.
  const agents = useAgents()
  const slug = open && kind === 'presets' ? agents.data?.agents[0]?.slug : undefined
  const selector = useResource(slug ? `models:${slug}` : null, () => api.models(slug ?? ''))
  return {
    'provider-kinds': PROVIDER_KINDS.map((value) => ({ value, label: value })),
    providers: unique([
      ...(providers.data ?? []).map((p) => ({ value: p.key, label: p.key, hint: p.name || p.kind })),
      ...PROVIDER_KINDS.filter((k) => k !== 'openai-compatible').map((value) => ({ value, label: value, hint: 'pydantic-ai' })),
    ]),
    models: unique([
      ...(models.data ?? []).map((m) => ({ value: m.key, label: m.key, hint: m.label || m.name })),
      ...(selector.data?.models ?? []).map((m) => ({ value: m.id, label: m.id, hint: m.label })),
      { value: 'demo', label: 'demo', hint: 'Synapse demo model' },
    ]),
    presets: (presets.data ?? []).map((p) => ({ value: p.key, label: `${p.name || p.key}${p.is_sandbox ? ' (sandbox)' : ''}`, hint: p.model })),
    tones: (tones.data ?? []).map((t) => ({ value: t.key, label: `${t.emoji ? `${t.emoji} ` : ''}${t.name || t.key}` })),
    tools: (tools.data?.tools ?? []).map((t) => ({ value: t.name, label: t.name, hint: t.tags.join(', ') })),
  }
}
