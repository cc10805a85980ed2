// A trace tree as the timeline draws it: the rows shown (depth-first, collapsed branches left
// out), each bar's place on the root's time line (the waterfall), counts, and finding a node.
import type { TraceNode } from './api'

/** A node's key in the tree: its kind and id (a run's id is its agent_run_id). */
export const keyOf = (node: Pick<TraceNode, 'kind' | 'id'>): string => `${node.kind}:${node.id}`

export interface TimelineRow {
  node: TraceNode
  key: string
  /** How far in the row is drawn: 0 for the root, one more under each node. */
  level: number
  hasChildren: boolean
  expanded: boolean
}

/** The rows on screen, depth-first in start order; the children of a collapsed node are left out. */
export function flatten(root: TraceNode, collapsed: ReadonlySet<string>): TimelineRow[] {
  const rows: TimelineRow[] = []
  const visit = (node: TraceNode, level: number) => {
    const key = keyOf(node)
    const hasChildren = node.children.length > 0
    const expanded = hasChildren && !collapsed.has(key)
    rows.push({ node, key, level, hasChildren, expanded })
    if (expanded) for (const child of node.children) visit(child, level + 1)
  }
  visit(root, 0)
  return rows
}

/** Every node, depth-first. */
export function walk(root: TraceNode): TraceNode[] {
  const nodes: TraceNode[] = []
  const visit = (node: TraceNode) => {
    nodes.push(node)
    node.children.forEach(visit)
  }
  visit(root)
  return nodes
}

/** The keys of the nodes that have children (what "collapse all" folds). */
export function branchKeys(root: TraceNode): string[] {
  return walk(root)
    .filter((node) => node.children.length > 0)
    .map(keyOf)
}

export function findNode(root: TraceNode, key: string | null): TraceNode | null {
  if (key === null) return null
  return walk(root).find((node) => keyOf(node) === key) ?? null
}

export interface TreeCounts {
  runs: number
  models: number
  tools: number
  errors: number
  /** The deepest run's depth (0: no nested run). */
  depth: number
}

export function countNodes(root: TraceNode): TreeCounts {
  const counts: TreeCounts = { runs: 0, models: 0, tools: 0, errors: 0, depth: 0 }
  for (const node of walk(root)) {
    if (node.kind === 'run') {
      counts.runs += 1
      counts.depth = Math.max(counts.depth, (node.depth ?? 0) - (root.depth ?? 0))
    } else if (node.kind === 'model') counts.models += 1
    else counts.tools += 1
    if (node.status === 'error') counts.errors += 1
  }
  return counts
}

/** The time line every bar is placed on, in epoch milliseconds. */
export interface Span {
  start: number
  duration: number
}

const startOf = (node: Pick<TraceNode, 'started_at'>): number => new Date(node.started_at).getTime()

/**
 * The root's start and duration, stretched to cover any node that ends after it (times are
 * rounded to the millisecond, so a last child can end a moment after its run).
 */
export function timelineSpan(root: TraceNode): Span {
  const start = startOf(root)
  let end = start + root.duration_ms
  for (const node of walk(root)) {
    const nodeEnd = startOf(node) + node.duration_ms
    if (Number.isFinite(nodeEnd)) end = Math.max(end, nodeEnd)
  }
  return { start, duration: Math.max(0, end - start) }
}

/** The narrowest bar drawn (percent of the line), so an instant call is still seen. */
export const MIN_WIDTH = 0.5

/** Where a node's bar sits: its offset from the start and its width, in percent of `span`. */
export function waterfall(node: Pick<TraceNode, 'started_at' | 'duration_ms'>, span: Span): { offset: number; width: number } {
  const start = startOf(node)
  if (!(span.duration > 0) || !Number.isFinite(start)) return { offset: 0, width: 100 }
  const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value))
  const offset = clamp(((start - span.start) / span.duration) * 100, 0, 100 - MIN_WIDTH)
  const width = clamp((node.duration_ms / span.duration) * 100, MIN_WIDTH, 100 - offset)
  return { offset, width }
}
