// The rules as the page lists them: by tenant, then subject (the whole tenant first), in the
// server's order; and moving one rule up or down among those it is ordered with.
import type { Rule } from './api'

export interface SubjectGroup {
  subject: string | null
  rules: Rule[]
}

export interface TenantGroup {
  tenant: string
  subjects: SubjectGroup[]
}

/** `rules` (in the server's order) by tenant, then subject, each group in the order it first appears. */
export function groupRules(rules: readonly Rule[]): TenantGroup[] {
  const tenants: TenantGroup[] = []
  for (const rule of rules) {
    let tenant = tenants.find((group) => group.tenant === rule.tenant)
    if (!tenant) tenants.push((tenant = { tenant: rule.tenant, subjects: [] }))
    let subject = tenant.subjects.find((group) => group.subject === rule.subject)
    if (!subject) tenant.subjects.push((subject = { subject: rule.subject, rules: [] }))
    subject.rules.push(rule)
  }
  return tenants
}

/** The rules a prompt puts in one list with `rule`: same tenant, subject and person (or everyone). */
export const orderedWith = (rules: readonly Rule[], rule: Rule): Rule[] =>
  rules.filter((other) => other.tenant === rule.tenant && other.subject === rule.subject && other.applies_to === rule.applies_to)

export interface PriorityChange {
  id: string
  priority: number
}

/** Whether `a` comes before `b` at the same priority: the server breaks ties by creation, then id. */
const writtenFirst = (a: Rule, b: Rule) => a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id)

function inOrder(order: readonly Rule[], priorities: readonly number[], k: number): boolean {
  const [p, q] = [priorities[k]!, priorities[k + 1]!]
  return p < q || (p === q && writtenFirst(order[k]!, order[k + 1]!))
}

/** `wanted` changed as little as needed for the server to sort `order` as it is, walking `step` ways. */
function repaired(order: readonly Rule[], wanted: readonly number[], step: 1 | -1): number[] {
  const priorities = [...wanted]
  const last = order.length - 1
  for (let k = step === 1 ? 1 : last - 1; k >= 0 && k <= last; k += step) {
    const pair = step === 1 ? k - 1 : k
    if (!inOrder(order, priorities, pair)) priorities[k] = priorities[k - step]! + step
  }
  return priorities
}

/**
 * The priorities to write to move `list[index]` one place (`step` -1: up, 1: down) in `list` (rules
 * ordered together, in the server's order): the two swap priorities, and where ties make that move
 * nothing (or too much), the fewest rules around them change so the server's order is the new one.
 */
export function moveBy(list: readonly Rule[], index: number, step: -1 | 1): PriorityChange[] {
  const other = index + step
  const moved = list[index]
  const neighbour = list[other]
  if (!moved || !neighbour) return []
  const order = [...list]
  order[index] = neighbour
  order[other] = moved
  const swapped = order.map((rule) => (rule === moved ? neighbour.priority : rule === neighbour ? moved.priority : rule.priority))
  const candidates = swapped.every((_, k) => k === 0 || inOrder(order, swapped, k - 1)) ? [swapped] : [repaired(order, swapped, 1), repaired(order, swapped, -1)]
  const changes = candidates.map((priorities) => order.flatMap((rule, k) => (priorities[k] === rule.priority ? [] : [{ id: rule.id, priority: priorities[k]! }])))
  return changes.reduce((best, next) => (next.length < best.length ? next : best))
}
