/** `/agents/<slug>`; a configured agent's `config:<key>` keeps its colon (valid in a path). */
export const agentPath = (slug: string): string => `/agents/${encodeURIComponent(slug).replaceAll('%3A', ':')}`

export const conversationPath = (slug: string, id: string): string => `${agentPath(slug)}/c/${encodeURIComponent(id)}`

/** The comparison of two conversations (A on the left, B on the right). */
export const comparePath = (a: string, b: string): string => `/compare?${new URLSearchParams({ a, b }).toString()}`
