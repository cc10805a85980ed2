// The countdown of a provider's Retry-After on an error card.

/** Seconds left of the provider's Retry-After, counted from when the error happened (0 once passed). */
export function secondsLeft(retryAfter: number, at: number | null | undefined, now: number): number {
  if (!at) return 0
  return Math.max(0, Math.ceil(retryAfter - (now - at) / 1000))
}
