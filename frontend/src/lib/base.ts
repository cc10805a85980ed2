// Where the dashboard lives: `/` under `synapse serve`, a prefix such as `/synapse` when an app
// mounts Synapse (`synapse_agents.mount`). The server says so in a meta tag of index.html.

function readBase(): string {
  if (typeof document === 'undefined') return ''
  const content = document.querySelector<HTMLMetaElement>('meta[name="synapse-base"]')?.content ?? ''
  return content.replace(/\/+$/, '')
}

export const BASE = readBase()

declare global {
  interface Window {
    /** The URL of a built file (`assets/x.js`) under this page's base: see vite.config.ts. */
    __synapseAsset?: (filename: string) => string
  }
}

if (typeof window !== 'undefined') window.__synapseAsset = (filename) => `${BASE}/${filename}`

/** An API path (`/api/...`) as this page must fetch it, under the mount prefix when there is one. */
export function apiUrl(path: string, base = BASE): string {
  if (!base || !path.startsWith('/') || path.startsWith('//') || path === base || path.startsWith(`${base}/`)) return path
  return `${base}${path}`
}
