export const agentPath = (slug: string): string => `/agents/${encodeURIComponent(slug)}`

export const conversationPath = (slug: string, id: string): string => `${agentPath(slug)}/c/${encodeURIComponent(id)}`
