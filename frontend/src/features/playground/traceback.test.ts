import { describe, expect, it } from 'vitest'
import { foldLibraryFrames, isLibraryFile, ownFrames, packageOf, parseTraceback } from './traceback'

const TRACEBACK = `Traceback (most recent call last):
  File "/app/.venv/lib/python3.11/site-packages/synapse_agents/chat/turn.py", line 210, in events
    async with agent.run_stream_events(
  File "/app/.venv/lib/python3.11/site-packages/pydantic_ai/agent/__init__.py", line 900, in iter
    yield run
  File "/app/.venv/lib/python3.11/site-packages/pydantic_ai/_agent_graph.py", line 1200, in run
    return await self._call()
               ^^^^^^^^^^^^^^
  File "/home/me/project/agents/support.py", line 42, in lookup_order
    raise LookupError(order_id)
  File "/usr/lib/python3.11/asyncio/tasks.py", line 277, in __step
    result = coro.send(None)
LookupError: A-1001
`

describe('tracebacks', () => {
  it('tells library and Python files from the project', () => {
    expect(isLibraryFile('/x/.venv/lib/python3.11/site-packages/httpx/_client.py')).toBe(true)
    expect(isLibraryFile('/usr/lib/python3.11/asyncio/tasks.py')).toBe(true)
    expect(isLibraryFile('<frozen importlib._bootstrap>')).toBe(true)
    expect(isLibraryFile('/home/me/project/agents/support.py')).toBe(false)
    expect(isLibraryFile('C:\\work\\app\\Lib\\site-packages\\anyio\\x.py')).toBe(true)
  })

  it('parses frames with their code line, carets included, and keeps the other lines as text', () => {
    const lines = parseTraceback(TRACEBACK)
    const frames = lines.filter((line) => line.kind === 'frame')
    expect(frames).toHaveLength(5)
    expect(lines[0]).toEqual({ kind: 'text', text: 'Traceback (most recent call last):' })
    expect(lines[lines.length - 1]).toEqual({ kind: 'text', text: 'LookupError: A-1001' })
    expect(lines.some((line) => line.kind === 'text' && line.text.includes('^^^'))).toBe(false)
    const own = ownFrames(lines)
    expect(own).toEqual([
      expect.objectContaining({ file: '/home/me/project/agents/support.py', line: 42, func: 'lookup_order', code: 'raise LookupError(order_id)', library: false }),
    ])
  })

  it('folds runs of library frames and leaves a lone one as it is', () => {
    const folded = foldLibraryFrames(parseTraceback(TRACEBACK))
    expect(folded.map((line) => line.kind)).toEqual(['text', 'folded', 'frame', 'frame', 'text'])
    const [, run] = folded
    expect(run!.kind === 'folded' && run!.frames.map((f) => f.line)).toEqual([210, 900, 1200])
  })
})

describe('folded frames name their packages', () => {
  it('names site-packages, Synapse and the standard library', () => {
    expect(packageOf('/app/.venv/lib/python3.11/site-packages/pydantic_ai/agent/__init__.py')).toBe('pydantic_ai')
    expect(packageOf('/work/app/src/synapse_agents/chat/turn.py')).toBe('synapse_agents')
    expect(packageOf('/usr/lib/python3.11/asyncio/tasks.py')).toBe('python')
    expect(packageOf('<frozen importlib._bootstrap>')).toBe('python')
  })
})
