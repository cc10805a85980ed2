import { callsText, costText, formatMoment, kindLabel, offsetText, originLabel, tokensText } from './format'
import { delegation, modelNode, runNode } from './sample'
import { branchKeys, countNodes, findNode, flatten, keyOf, MIN_WIDTH, timelineSpan, walk, waterfall } from './tree'

const T0 = Date.parse('2026-05-11T07:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

describe('flatten', () => {
  it('lists every node depth-first in start order, one level deeper under each node', () => {
    const rows = flatten(delegation(), new Set())
    expect(rows.map((row) => [row.node.name, row.level])).toEqual([
      ['planner', 0],
      ['test-model', 1],
      ['research', 1],
      ['researcher', 2],
      ['check-model', 3],
      ['check_facts', 3],
      ['checker', 4],
      ['checker-model', 5],
      ['check-model', 3],
      ['test-model', 1],
    ])
    expect(rows.filter((row) => row.hasChildren).map((row) => row.node.name)).toEqual(['planner', 'research', 'researcher', 'check_facts', 'checker'])
    expect(rows.every((row) => row.expanded === row.hasChildren)).toBe(true)
  })

  it('leaves out what is under a collapsed node, and only that', () => {
    const rows = flatten(delegation(), new Set(['tool:tool-b']))
    const names = rows.map((row) => row.node.name)
    expect(names).not.toContain('checker')
    expect(names).not.toContain('checker-model')
    expect(names).toContain('check_facts')
    expect(rows.find((row) => row.node.name === 'check_facts')).toMatchObject({ hasChildren: true, expanded: false })
    expect(rows).toHaveLength(8)
    // Collapsing the root leaves the root alone.
    expect(flatten(delegation(), new Set(['run:run-a'])).map((row) => row.key)).toEqual(['run:run-a'])
  })

  it('keys a node by kind and id, so a run and a call with the same id stay apart', () => {
    expect(keyOf({ kind: 'run', id: 'x' })).not.toBe(keyOf({ kind: 'model', id: 'x' }))
    const keys = flatten(delegation(), new Set()).map((row) => row.key)
    expect(new Set(keys).size).toBe(keys.length)
  })
})

describe('waterfall', () => {
  const span = { start: T0, duration: 200 }

  it('places a bar by its start and length on the root line, in percent', () => {
    expect(waterfall({ started_at: at(0), duration_ms: 200 }, span)).toEqual({ offset: 0, width: 100 })
    expect(waterfall({ started_at: at(50), duration_ms: 100 }, span)).toEqual({ offset: 25, width: 50 })
    expect(waterfall({ started_at: at(150), duration_ms: 50 }, span)).toEqual({ offset: 75, width: 25 })
  })

  it('keeps an instant call visible and every bar inside the line', () => {
    expect(waterfall({ started_at: at(100), duration_ms: 0 }, span)).toEqual({ offset: 50, width: MIN_WIDTH })
    // Starts before the root (clock rounding) or runs past its end: clamped.
    expect(waterfall({ started_at: at(-10), duration_ms: 20 }, span)).toEqual({ offset: 0, width: 10 })
    const late = waterfall({ started_at: at(190), duration_ms: 50 }, span)
    expect(late.offset).toBe(95)
    expect(late.offset + late.width).toBeLessThanOrEqual(100)
    const end = waterfall({ started_at: at(200), duration_ms: 0 }, span)
    expect(end.offset + end.width).toBeLessThanOrEqual(100)
    expect(end.width).toBe(MIN_WIDTH)
  })

  it('draws every bar full width on a line of no length, or for a time it cannot read', () => {
    expect(waterfall({ started_at: at(0), duration_ms: 0 }, { start: T0, duration: 0 })).toEqual({ offset: 0, width: 100 })
    expect(waterfall({ started_at: 'not a time', duration_ms: 5 }, span)).toEqual({ offset: 0, width: 100 })
  })

  it('uses the root start and duration, stretched to the last node that ends after it', () => {
    const tree = delegation()
    expect(timelineSpan(tree)).toEqual({ start: T0, duration: 200 })
    const late = runNode({ id: 'r', name: 'r', duration_ms: 100, children: [modelNode({ id: 'm', started_at: at(90), duration_ms: 30 })] })
    expect(timelineSpan(late)).toEqual({ start: T0, duration: 120 })
    // The nested run of the delegation sits where it ran.
    const checker = findNode(tree, 'run:run-c')!
    expect(waterfall(checker, timelineSpan(tree))).toEqual({ offset: 52.5, width: 10 })
  })
})

describe('tree helpers', () => {
  it('counts runs, calls, failures and the deepest nested run', () => {
    const tree = delegation()
    expect(countNodes(tree)).toEqual({ runs: 3, models: 5, tools: 2, errors: 0, depth: 2 })
    findNode(tree, 'tool:tool-b')!.status = 'error'
    expect(countNodes(tree).errors).toBe(1)
    // From a nested run down, depth counts from that run.
    expect(countNodes(findNode(tree, 'run:run-b')!).depth).toBe(1)
  })

  it('finds a node by key and lists the branches', () => {
    const tree = delegation()
    expect(findNode(tree, 'model:call-c1')?.name).toBe('checker-model')
    expect(findNode(tree, 'model:nope')).toBeNull()
    expect(findNode(tree, null)).toBeNull()
    expect(branchKeys(tree)).toEqual(['run:run-a', 'tool:tool-a', 'run:run-b', 'tool:tool-b', 'run:run-c'])
    expect(walk(tree)).toHaveLength(10)
  })
})

describe('format', () => {
  it('words tokens and costs, unpriced when the price is unknown', () => {
    expect(tokensText({ input_tokens: 1240, output_tokens: 86 })).toBe('1,240 in · 86 out')
    expect(tokensText({ input_tokens: null, output_tokens: null })).toBeNull()
    expect(costText({ kind: 'run', cost: null })).toBe('unpriced')
    expect(costText({ kind: 'model', cost: '0.0042' })).toBe('$0.0042')
    expect(costText({ kind: 'tool', cost: null })).toBeNull()
    expect(callsText(1, 2)).toBe('1 model call · 2 tool calls')
  })

  it('words kinds, origins and times', () => {
    expect(kindLabel('model')).toBe('Model call')
    expect(originLabel('direct')).toBe('Direct')
    expect(originLabel('config')).toBe('Configured')
    expect(originLabel('later')).toBe('later')
    expect(originLabel(null)).toBe('—')
    expect(offsetText(at(1830), at(0))).toBe('+1.83 s')
    expect(offsetText(at(0), at(5))).toBe('+0 ms')
    expect(formatMoment('garbage')).toBe('garbage')
    expect(formatMoment(at(0))).toMatch(/\d{2}:\d{2}:\d{2}\.000/)
  })
})
