// A memory as the add and edit form holds it ↔ the API's body: a new memory sends what was given,
// an edit only what changed (a cleared subject or person becomes null: the whole tenant, everyone).
import type { FieldErrors } from '@/features/rules/ruleForm'
import type { Memory, MemoryInput, MemoryPatch } from './api'

export interface MemoryDraft {
  tenant: string
  content: string
  subject: string
  applies_to: string
  created_by: string
}

export type MemoryField = keyof MemoryDraft
export const MEMORY_FIELDS: MemoryField[] = ['tenant', 'content', 'subject', 'applies_to', 'created_by']
const EDITABLE = ['content', 'subject', 'applies_to'] as const

export function memoryDraftOf(memory: Memory | null, tenant = ''): MemoryDraft {
  if (!memory) return { tenant, content: '', subject: '', applies_to: '', created_by: '' }
  return { tenant: memory.tenant, content: memory.content, subject: memory.subject ?? '', applies_to: memory.applies_to ?? '', created_by: memory.created_by ?? '' }
}

/** The body to send for `draft` (`original` null: a new memory), or what is plainly missing. */
export function memoryBodyOf(draft: MemoryDraft, original: Memory | null): { body: MemoryInput | MemoryPatch; errors: FieldErrors<MemoryField> } {
  const values = {
    tenant: draft.tenant.trim(),
    content: draft.content.trim(),
    subject: draft.subject.trim() || null,
    applies_to: draft.applies_to.trim() || null,
    created_by: draft.created_by.trim() || null,
  }
  const errors: FieldErrors<MemoryField> = {}
  if (!values.content) errors.content = 'Write what to remember.'
  if (!original && !values.tenant) errors.tenant = 'Whose memory it is, as type:id, e.g. org:acme.'
  if (Object.keys(errors).length) return { body: {}, errors }
  if (!original) {
    const body: MemoryInput = { tenant: values.tenant, content: values.content }
    for (const name of ['subject', 'applies_to', 'created_by'] as const) if (values[name]) body[name] = values[name]
    return { body, errors }
  }
  const body: MemoryPatch = {}
  for (const name of EDITABLE) if (values[name] !== original[name]) Object.assign(body, { [name]: values[name] })
  return { body, errors }
}
