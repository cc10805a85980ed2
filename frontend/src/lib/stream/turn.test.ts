import fallback from '@/test/fixtures/fallback.sse?raw'
import midStream from '@/test/fixtures/mid-stream-error.sse?raw'
import nativeTool from '@/test/fixtures/native-tool.sse?raw'
import rateLimit from '@/test/fixtures/rate-limit.sse?raw'
import stateless from '@/test/fixtures/stateless.sse?raw'
import structured from '@/test/fixtures/structured-output.sse?raw'
import toolError from '@/test/fixtures/tool-error.sse?raw'
import tools from '@/test/fixtures/tools.sse?raw'
import { chunksOf } from '@/test/sse'
import type { AssistantPart, ToolView } from '../thread'
import { parseChunk, type UIChunk } from './chunks'
import { applyChunk, emptyTurn, interruptTurn, nativeStatus, type Turn } from './turn'

function play(recording: string, clock = (i: number) => i * 10): Turn {
  return chunksOf(recording)
    .map((raw) => parseChunk(JSON.stringify(raw)))
    .filter((chunk): chunk is UIChunk => chunk !== null)
    .reduce((turn, chunk, i) => applyChunk(turn, chunk, clock(i)), emptyTurn())
}

const toolsOf = (turn: Turn): ToolView[] => turn.parts.flatMap((p) => (p.type === 'tool' ? [p.tool] : []))
const ofType = <T extends AssistantPart['type']>(turn: Turn, type: T) =>
  turn.parts.filter((p): p is Extract<AssistantPart, { type: T }> => p.type === type)

describe('a turn assembled from recorded streams', () => {
  it('tool calls: three cards with arguments and results, then the answer and its metadata', () => {
    const turn = play(tools)
    expect(turn.status).toBe('done')
    const calls = toolsOf(turn)
    expect(calls.map((t) => t.name)).toEqual(['lookup_order', 'search_knowledge_base', 'create_ticket'])
    expect(calls.every((t) => t.status === 'success' && t.kind === 'function')).toBe(true)
    expect(calls[0]!.args).toEqual({ order_id: 'A-1001' })
    expect(calls[0]!.result).toMatchObject({ order_id: 'A-1001', status: 'shipped' })
    expect(calls[0]!.durationMs).toBeGreaterThan(0)
    expect(ofType(turn, 'reasoning')).toHaveLength(2)
    expect(ofType(turn, 'text')[0]!.text).toContain("Here's what I found")
    expect(ofType(turn, 'text')[0]!.streaming).toBe(false)
    expect(turn.metadata.conversation_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(turn.metadata.usage?.output_tokens).toBeGreaterThan(0)
    expect(turn.metadata.duration_ms).toBeGreaterThan(0)
    // Order as it happened: thinking, the tool stack, thinking again, the answer.
    expect(turn.parts.map((p) => p.type)).toEqual(['reasoning', 'tool', 'tool', 'tool', 'reasoning', 'text'])
  })

  it('a failing tool: the card turns red and an error card follows, with class and traceback', () => {
    const turn = play(toolError)
    expect(turn.status).toBe('error')
    const [call] = toolsOf(turn)
    expect(call).toMatchObject({ name: 'check_inventory', status: 'error', error: 'RuntimeError: inventory service unreachable' })
    const [error] = ofType(turn, 'error')
    expect(error!.error).toMatchObject({ className: 'RuntimeError', message: 'inventory service unreachable', recoverable: false })
    expect(error!.error.traceback).toContain('Traceback')
  })

  it('a provider error before any output is one recoverable error card', () => {
    const turn = play(rateLimit)
    expect(turn.parts.map((p) => p.type)).toEqual(['error'])
    expect(ofType(turn, 'error')[0]!.error).toMatchObject({ className: 'ModelRateLimitError', recoverable: true })
  })

  it('an error mid-stream keeps the text streamed so far', () => {
    const turn = play(midStream)
    expect(ofType(turn, 'text')[0]!.text.length).toBeGreaterThan(20)
    expect(turn.parts.at(-1)!.type).toBe('error')
  })

  it('a native tool is one card, marked native, from tool-input and data-native-tool chunks', () => {
    const turn = play(nativeTool)
    const calls = toolsOf(turn)
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ name: 'web_search', kind: 'native', status: 'success', provider: 'synapse' })
    expect(calls[0]!.args).toEqual({ query: 'pydantic-ai streaming' })
  })

  it('structured output: a JSON part, and the output tool that produced it is marked as such', () => {
    const turn = play(structured)
    expect(ofType(turn, 'structured-output')[0]!.output).toMatchObject({ category: 'billing', customer: { name: 'Ada' } })
    expect(toolsOf(turn)[0]).toMatchObject({ name: 'final_result', kind: 'output' })
  })

  it('a model fallback is a notice', () => {
    const [notice] = ofType(play(fallback), 'notice')
    expect(notice).toMatchObject({ noticeKind: 'fallback' })
    expect(notice!.message).toContain('Fell back')
  })

  it('stateless metadata comes through', () => {
    expect(play(stateless).metadata.stateless).toBe(true)
  })
})

describe('applyChunk', () => {
  it('streams text into one part and closes it', () => {
    let turn = applyChunk(emptyTurn(), { type: 'text-start', id: 't' }, 0)
    turn = applyChunk(turn, { type: 'text-delta', id: 't', delta: 'Hel' }, 1)
    expect(ofType(turn, 'text')[0]).toMatchObject({ text: 'Hel', streaming: true })
    turn = applyChunk(turn, { type: 'text-delta', id: 't', delta: 'lo' }, 2)
    turn = applyChunk(turn, { type: 'text-end', id: 't' }, 3)
    expect(ofType(turn, 'text')[0]).toMatchObject({ text: 'Hello', streaming: false })
  })

  it('never mutates the turn it is given', () => {
    const before = applyChunk(emptyTurn(), { type: 'text-delta', id: 't', delta: 'a' }, 0)
    const frozen = JSON.stringify(before)
    applyChunk(before, { type: 'text-delta', id: 't', delta: 'b' }, 1)
    expect(JSON.stringify(before)).toBe(frozen)
  })

  it('shows streamed tool arguments until they are complete, then the parsed input', () => {
    let turn = applyChunk(emptyTurn(), { type: 'tool-input-start', toolCallId: 'c', toolName: 'f' }, 0)
    turn = applyChunk(turn, { type: 'tool-input-delta', toolCallId: 'c', inputTextDelta: '{"a":' }, 5)
    expect(toolsOf(turn)[0]).toMatchObject({ argsText: '{"a":', status: 'pending' })
    turn = applyChunk(turn, { type: 'tool-input-available', toolCallId: 'c', toolName: 'f', input: { a: 1 } }, 10)
    turn = applyChunk(turn, { type: 'tool-output-available', toolCallId: 'c', output: 'ok' }, 45)
    expect(toolsOf(turn)[0]).toMatchObject({ args: { a: 1 }, argsText: undefined, result: 'ok', status: 'success', durationMs: 45 })
  })

  it("takes the server's tool duration (execution to result) over the time the chunks took to arrive", () => {
    let turn = applyChunk(emptyTurn(), { type: 'tool-input-start', toolCallId: 'c', toolName: 'f' }, 0)
    turn = applyChunk(turn, { type: 'tool-input-available', toolCallId: 'c', toolName: 'f', input: {} }, 30)
    turn = applyChunk(turn, { type: 'tool-output-available', toolCallId: 'c', output: 'ok' }, 44)
    expect(toolsOf(turn)[0]!.durationMs).toBe(44)
    const timed = parseChunk('{"type":"data-tool-timing","data":{"tool_call_id":"c","duration_ms":1},"transient":true}')
    expect(timed).not.toBeNull()
    turn = applyChunk(turn, timed!, 46)
    expect(toolsOf(turn)[0]).toMatchObject({ status: 'success', durationMs: 1 })
    // a timing for a call the turn does not show changes nothing
    expect(applyChunk(turn, { type: 'data-tool-timing', data: { tool_call_id: 'other', duration_ms: 9 } }, 47)).toBe(turn)
  })

  it('a call the failure cancelled reads interrupted, as stored, not error', () => {
    let turn = applyChunk(emptyTurn(), { type: 'tool-input-start', toolCallId: 'slow', toolName: 'slow' }, 0)
    turn = applyChunk(turn, { type: 'tool-output-error', toolCallId: 'slow', errorText: 'Tool execution was interrupted by an error.' }, 5)
    expect(toolsOf(turn)[0]!.status).toBe('error')
    const status = parseChunk('{"type":"data-tool-status","data":{"tool_call_id":"slow","status":"interrupted"},"transient":true}')
    turn = applyChunk(turn, status!, 6)
    expect(toolsOf(turn)[0]!.status).toBe('interrupted')
  })

  it('ignores chunk types it does not know', () => {
    expect(parseChunk('{"type":"tool-something-new","toolCallId":"c"}')).toBeNull()
    expect(parseChunk('{"type":"data-something-new","data":{}}')).toBeNull()
    expect(parseChunk('not json')).toBeNull()
    expect(parseChunk('{"type":"data-notice","data":{"message":"m"}}')).not.toBeNull()
  })

  it('keeps each cited source once', () => {
    let turn = applyChunk(emptyTurn(), { type: 'source-url', sourceId: 's1', url: 'https://a.example', title: 'A' }, 0)
    turn = applyChunk(turn, { type: 'source-url', sourceId: 's2', url: 'https://a.example' }, 1)
    expect(ofType(turn, 'source')).toEqual([{ type: 'source', id: 'source-s1', url: 'https://a.example', title: 'A' }])
  })

  it('a data-error whose error chunk never came still shows at finish', () => {
    let turn = applyChunk(emptyTurn(), { type: 'data-error', data: { class: 'X', message: 'boom', recoverable: false } }, 0)
    turn = applyChunk(turn, { type: 'finish' }, 1)
    expect(turn.status).toBe('error')
    expect(ofType(turn, 'error')[0]!.error).toMatchObject({ className: 'X', message: 'boom' })
  })

  it('a stopped turn marks running tools as interrupted', () => {
    const running = applyChunk(emptyTurn(), { type: 'tool-input-start', toolCallId: 'c', toolName: 'slow' }, 0)
    const stopped = interruptTurn(running, 100, 'aborted')
    expect(stopped.status).toBe('aborted')
    expect(toolsOf(stopped)[0]).toMatchObject({ status: 'interrupted', durationMs: 100 })
  })

  it('a dropped connection adds a recoverable error card', () => {
    const cut = interruptTurn(emptyTurn(), 0, 'error', 'network went away')
    expect(ofType(cut, 'error')[0]!.error).toMatchObject({ message: 'network went away', recoverable: true })
  })
})

describe('nativeStatus', () => {
  it.each([
    ['completed', 'success'],
    ['result_received', 'success'],
    ['failed', 'error'],
    ['in_progress', 'pending'],
    ['searching', 'pending'],
    [null, 'pending'],
  ])('%s → %s', (raw, status) => expect(nativeStatus(raw)).toBe(status))
})
