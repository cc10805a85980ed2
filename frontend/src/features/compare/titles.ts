// The two titles of a comparison, made to read apart: a fork stored with its source's very title
// (forks made before the server named them `fork of …`) is shown as `fork of <title>`, and two
// titles still alike (two forks of one source) each end with when that conversation was created,
// then with the end of its id when that is the same too.
import type { ThreadConversation } from '@/lib/api/types'
import { formatDateTime } from '@/lib/format'

type Titled = Pick<ThreadConversation, 'id' | 'title' | 'created_at' | 'forked_from'>

const FORK_OF = 'fork of '

/** The conversation's title as the comparison names it: `Untitled` when empty, `fork of …` for a
 * fork that kept its source's title. */
export function branchTitle(conversation: Titled): string {
  const title = conversation.title || 'Untitled'
  const source = conversation.forked_from
  if (source && source.title !== null && source.title === conversation.title && !title.toLowerCase().startsWith(FORK_OF)) return FORK_OF + title
  return title
}

/** The titles of A and B, never the same text for two different conversations. */
export function branchTitles(a: Titled, b: Titled): [string, string] {
  const titles: [string, string] = [branchTitle(a), branchTitle(b)]
  if (a.id === b.id || titles[0] !== titles[1]) return titles
  const created = [formatDateTime(a.created_at), formatDateTime(b.created_at)]
  if (created[0] !== created[1]) return [`${titles[0]} · ${created[0]}`, `${titles[1]} · ${created[1]}`]
  return [`${titles[0]} · …${a.id.slice(-6)}`, `${titles[1]} · …${b.id.slice(-6)}`]
}
