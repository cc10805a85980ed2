// The rules API (docs/memory.md, "Rules"), typed from schema.gen.ts (`npm run api-types`). Axes are
// `type:id` text; a null subject is the tenant as a whole, a null `applies_to` everyone.
import { json, request } from '@/lib/api/client'
import type { components } from '@/lib/api/schema.gen'

type Schemas = components['schemas']

export type Rule = Schemas['RuleOut']
export type RuleList = Schemas['RuleList']
/** A new rule (`priority` and `enabled` have defaults: 0 and true). */
export type RuleInput = Partial<Pick<Schemas['RuleIn'], 'priority' | 'enabled'>> & Omit<Schemas['RuleIn'], 'priority' | 'enabled'>
/** What to change; the fields left out stay (`subject: null`: the whole tenant, `applies_to: null`: everyone). */
export type RulePatch = Schemas['RulePatch']
/** The rules a conversation of one scope gets and the block at the top of its prompt ('' for none). */
export type RulesPreview = Schemas['RulesPreview']

const one = (id: string) => `/api/rules/${encodeURIComponent(id)}`

export const rulesApi = {
  list: (query: URLSearchParams) => {
    const qs = query.toString()
    return request<RuleList>(`/api/rules${qs ? `?${qs}` : ''}`)
  },
  create: (body: RuleInput) => request<Rule>('/api/rules', json('POST', body)),
  update: (id: string, body: RulePatch) => request<Rule>(one(id), json('PATCH', body)),
  remove: (id: string) => request<{ deleted: string }>(one(id), { method: 'DELETE' }),
  preview: (query: URLSearchParams) => request<RulesPreview>(`/api/rules/preview?${query.toString()}`),
}
