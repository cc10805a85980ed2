// The browse filters as the form edits them ↔ the query both the page's URL and the API read:
// an axis left out is any value, present but empty only null (tenant-wide, everyone), else exactly
// that label.
import type { MemorySource } from './api'

export type AxisMode = 'any' | 'none' | 'exact'
export interface AxisDraft {
  mode: AxisMode
  label: string
}

export const AXES = ['subject', 'applies_to'] as const
export type Axis = (typeof AXES)[number]

export interface BrowseDraft {
  tenant: string
  subject: AxisDraft
  applies_to: AxisDraft
  source: MemorySource | ''
}

export const SOURCES: MemorySource[] = ['distilled', 'tool', 'manual']
const isSource = (value: string | null): value is MemorySource => SOURCES.includes(value as MemorySource)

function axisOf(params: URLSearchParams, axis: Axis): AxisDraft {
  const value = params.get(axis)
  if (value === null) return { mode: 'any', label: '' }
  return value === '' ? { mode: 'none', label: '' } : { mode: 'exact', label: value }
}

export function draftOf(params: URLSearchParams): BrowseDraft {
  const source = params.get('source')
  return {
    tenant: params.get('tenant') ?? '',
    subject: axisOf(params, 'subject'),
    applies_to: axisOf(params, 'applies_to'),
    source: isSource(source) ? source : '',
  }
}

/** The API's query for `draft` (its tenant trimmed; an exact axis with no label is any). */
export function queryOf(draft: BrowseDraft): URLSearchParams {
  const query = new URLSearchParams({ tenant: draft.tenant.trim() })
  for (const axis of AXES) {
    const { mode, label } = draft[axis]
    if (mode === 'none') query.set(axis, '')
    if (mode === 'exact' && label.trim()) query.set(axis, label.trim())
  }
  if (draft.source) query.set('source', draft.source)
  return query
}

/** The browse query the page's URL holds, or null before a tenant is given. */
export function browseQuery(params: URLSearchParams): string | null {
  const draft = draftOf(params)
  return draft.tenant.trim() ? queryOf(draft).toString() : null
}
