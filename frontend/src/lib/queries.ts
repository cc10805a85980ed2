// The reads pages share, each under one cache key.
import { api } from './api/client'
import { registry, type EntryKind } from './api/registry'
import { useResource } from './resource'

export const useAgents = () => useResource('agents', api.agents)
export const useHealth = () => useResource('health', api.health)
export const useExtensions = () => useResource('extensions', api.extensions)
export const useAgent = (slug: string) => useResource(`agent:${slug}`, () => api.agent(slug))
export const useModels = (slug: string) => useResource(`models:${slug}`, () => api.models(slug))
export const useConversation = (id: string | null) =>
  useResource(id ? `conversation:${id}` : null, () => api.conversation(id ?? ''))

/** `conversations?<query>`: invalidating "conversations" refreshes every list at once. */
export const useConversations = (query: URLSearchParams) => {
  const qs = query.toString()
  return useResource(`conversations?${qs}`, () => api.conversations(new URLSearchParams(qs)))
}

/** A registry listing (`registry:<kind>`, with sandboxes `registry:<kind>?sandbox`). */
export const useRegistry = <K extends EntryKind>(kind: K, sandboxes = false, enabled = true) =>
  useResource(enabled ? `registry:${kind}${sandboxes ? '?sandbox' : ''}` : null, () => registry.list(kind, sandboxes))
export const useRegistryTools = (enabled = true) => useResource(enabled ? 'registry:tools' : null, registry.tools)
export const useRegistrySettings = () => useResource('registry:settings', registry.settings)
