// The agent's model settings as the info panel lists them.

/** The settings every provider has a default for: shown even when the agent leaves them unset. */
const COMMON_SETTINGS = ['temperature', 'max_tokens', 'top_p']

/** The agent's model settings, with the common ones it leaves unset as "provider default". */
export function settingRows(settings: Record<string, unknown> | null | undefined): [string, string][] {
  const given = settings ?? {}
  const unset = COMMON_SETTINGS.filter((key) => given[key] === undefined || given[key] === null)
  return [
    ...Object.entries(given)
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([key, value]): [string, string] => [key, typeof value === 'object' ? JSON.stringify(value) : String(value)]),
    ...unset.map((key): [string, string] => [key, 'provider default']),
  ]
}
