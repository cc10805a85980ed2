// The registry's HTTP API (docs/registry.md): providers, models, presets, tones and agents by key,
// and the registry-managed settings.
import { json, request } from './client'
import type {
  AgentVersions,
  ConfiguredAgent,
  Preset,
  Provider,
  ProviderTest,
  RegistryModel,
  RegistrySettings,
  RegistryTools,
  Tone,
} from './types'

/** The kinds kept by key, as the API names them. */
export const ENTRY_KINDS = ['providers', 'models', 'presets', 'tones', 'agents'] as const
export type EntryKind = (typeof ENTRY_KINDS)[number]

export interface EntryOf {
  providers: Provider
  models: RegistryModel
  presets: Preset
  tones: Tone
  agents: ConfiguredAgent
}
export type Entry = EntryOf[EntryKind]

/** The kinds that have sandboxes (left out of listings unless asked for). */
export const SANDBOXED: readonly EntryKind[] = ['presets', 'agents']

const enc = encodeURIComponent
const base = (kind: EntryKind) => `/api/registry/${kind}`
const one = (kind: EntryKind, key: string) => `${base(kind)}/${enc(key)}`

export const registry = {
  list: async <K extends EntryKind>(kind: K, sandboxes = false): Promise<EntryOf[K][]> => {
    const body = await request<Record<string, EntryOf[K][]>>(`${base(kind)}${sandboxes ? '?sandbox=include' : ''}`)
    return body[kind] ?? []
  },
  create: <K extends EntryKind>(kind: K, body: Record<string, unknown>) => request<EntryOf[K]>(base(kind), json('POST', body)),
  update: <K extends EntryKind>(kind: K, key: string, body: Record<string, unknown>) =>
    request<EntryOf[K]>(one(kind, key), json('PATCH', body)),
  remove: (kind: EntryKind, key: string) => request<unknown>(one(kind, key), { method: 'DELETE' }),
  /** One tiny real request through the provider ("Say OK"). */
  test: (key: string, model: string) => request<ProviderTest>(`${one('providers', key)}/test`, json('POST', { model })),
  addPrice: (key: string, price: Record<string, unknown>) => request<unknown>(`${one('models', key)}/prices`, json('POST', price)),
  versions: (key: string) => request<AgentVersions>(`${one('agents', key)}/versions`),
  tools: () => request<RegistryTools>('/api/registry/tools'),
  settings: () => request<RegistrySettings>('/api/registry/settings'),
  putSetting: (name: string, value: unknown) => request<unknown>(`/api/registry/settings/${enc(name)}`, json('PUT', { value })),
  resetSetting: (name: string) => request<unknown>(`/api/registry/settings/${enc(name)}`, { method: 'DELETE' }),
}
