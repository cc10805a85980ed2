import type { ThreadItem, ToolView } from '../thread'
import {
  answersSummary,
  awaitingKinds,
  decidedTool,
  decisionsOf,
  pausedTools,
  pauseKindOf,
  readResult,
  withAnswers,
  type Answer,
} from './approval'
import { parseChunk, type UIChunk } from './chunks'
import { applyChunk, emptyTurn, interruptTurn, type Turn } from './turn'

// A run that pauses on two calls needing approval and one executed outside the agent, as the chat
// route streams it with sdk_version=6 (the SDK's own `tool-approval-request` beside Synapse's data).
const PAUSED = [
  '{"type":"start","messageId":"m2","messageMetadata":{"conversation_id":"conv","message_id":"m2","user_message_id":"m1"}}',
  '{"type":"start-step"}',
  '{"type":"tool-input-start","toolCallId":"c1","toolName":"delete_file"}',
  '{"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"{\\"path\\":\\"a.txt\\"}"}',
  '{"type":"tool-input-start","toolCallId":"c2","toolName":"delete_file"}',
  '{"type":"tool-input-start","toolCallId":"c3","toolName":"lookup_weather"}',
  '{"type":"tool-input-available","toolCallId":"c1","toolName":"delete_file","input":{"path":"a.txt"}}',
  '{"type":"tool-input-available","toolCallId":"c2","toolName":"delete_file","input":{"path":"b.txt"}}',
  '{"type":"tool-input-available","toolCallId":"c3","toolName":"lookup_weather","input":{"city":"Oslo"}}',
  '{"type":"data-tool-approval","id":"c1","data":{"tool_call_id":"c1","tool_name":"delete_file","args":{"path":"a.txt"},"kind":"approval"}}',
  '{"type":"tool-approval-request","approvalId":"c1","toolCallId":"c1"}',
  '{"type":"data-tool-approval","id":"c2","data":{"tool_call_id":"c2","tool_name":"delete_file","args":{"path":"b.txt"},"kind":"approval"}}',
  '{"type":"tool-approval-request","approvalId":"c2","toolCallId":"c2"}',
  '{"type":"data-tool-approval","id":"c3","data":{"tool_call_id":"c3","tool_name":"lookup_weather","args":{"city":"Oslo"},"kind":"external"}}',
  '{"type":"message-metadata","messageMetadata":{"conversation_id":"conv","message_id":"m2","usage":{"input_tokens":20,"output_tokens":9}}}',
  '{"type":"finish-step"}',
  '{"type":"finish","finishReason":"tool-calls","messageMetadata":{"conversation_id":"conv","message_id":"m2","awaiting":["c1","c2","c3"]}}',
]

function play(lines: string[]): Turn {
  return lines
    .map((line) => parseChunk(line))
    .filter((chunk): chunk is UIChunk => chunk !== null)
    .reduce((turn, chunk, i) => applyChunk(turn, chunk, i * 10), emptyTurn())
}

const toolsOf = (turn: Turn): ToolView[] => turn.parts.flatMap((p) => (p.type === 'tool' ? [p.tool] : []))

const tool = (over: Partial<ToolView> = {}): ToolView => ({
  callId: 'c1',
  name: 'delete_file',
  kind: 'function',
  status: 'awaiting',
  providerStatus: 'approval',
  args: { path: 'a.txt' },
  result: undefined,
  error: null,
  durationMs: null,
  ...over,
})

describe('a turn whose run pauses on tool calls', () => {
  it('parses both approval chunks', () => {
    expect(parseChunk(PAUSED[9]!)).toMatchObject({ type: 'data-tool-approval', data: { tool_call_id: 'c1', kind: 'approval' } })
    expect(parseChunk(PAUSED[10]!)).toEqual({ type: 'tool-approval-request', approvalId: 'c1', toolCallId: 'c1' })
  })

  it('ends done, with each paused call awaiting what it waits for instead of running', () => {
    const turn = play(PAUSED)
    expect(turn.status).toBe('done')
    expect(turn.metadata.awaiting).toEqual(['c1', 'c2', 'c3'])
    expect(toolsOf(turn).map((t) => [t.callId, t.name, t.status, t.providerStatus, pauseKindOf(t)])).toEqual([
      ['c1', 'delete_file', 'awaiting', 'approval', 'approval'],
      ['c2', 'delete_file', 'awaiting', 'approval', 'approval'],
      ['c3', 'lookup_weather', 'awaiting', 'external', 'external'],
    ])
    expect(toolsOf(turn)[2]).toMatchObject({ args: { city: 'Oslo' }, durationMs: null, argsText: undefined })
  })

  it('the SDK chunk alone marks a call awaiting approval; the metadata alone does too', () => {
    const started = [PAUSED[2]!, PAUSED[6]!]
    const byRequest = play([...started, PAUSED[10]!, '{"type":"finish"}'])
    expect(toolsOf(byRequest)[0]).toMatchObject({ status: 'awaiting', providerStatus: 'approval' })
    const byMetadata = play([...started, '{"type":"finish","messageMetadata":{"awaiting":["c1"]}}'])
    expect(toolsOf(byMetadata)[0]).toMatchObject({ status: 'awaiting', providerStatus: 'approval' })
    // Without either, a call left running when the turn ends was cut off.
    expect(toolsOf(play([...started, '{"type":"finish"}']))[0]!.status).toBe('interrupted')
  })

  it('a request for a call the turn never showed changes nothing; a finished call stays finished', () => {
    const turn = play([PAUSED[2]!, PAUSED[6]!])
    expect(applyChunk(turn, { type: 'tool-approval-request', approvalId: 'x', toolCallId: 'x' }, 1)).toBe(turn)
    const done = applyChunk(turn, { type: 'tool-output-available', toolCallId: 'c1', output: 'ok' }, 2)
    expect(toolsOf(applyChunk(done, { type: 'tool-approval-request', approvalId: 'c1', toolCallId: 'c1' }, 3))[0]!.status).toBe('success')
  })

  it('a stop or a dropped connection leaves awaiting calls awaiting', () => {
    const turn = play(PAUSED.slice(0, 14))
    expect(toolsOf(interruptTurn(turn, 500, 'aborted')).map((t) => t.status)).toEqual(['awaiting', 'awaiting', 'awaiting'])
  })
})

describe('answers to paused calls', () => {
  const answers: Answer[] = [
    { tool: tool({ callId: 'inv1' }), callId: 'c1', decision: { approved: true } },
    { tool: tool({ callId: 'inv2', args: { path: 'b.txt' } }), callId: 'c2', decision: { approved: false, reason: 'too risky' } },
    { tool: tool({ callId: 'c3', name: 'lookup_weather', providerStatus: 'external' }), callId: 'c3', decision: { result: { temp: 4 } } },
  ]

  it('go out keyed by tool call id, and read in words as the server stores them', () => {
    expect(JSON.stringify(decisionsOf(answers))).toBe('{"c1":{"approved":true},"c2":{"approved":false,"reason":"too risky"},"c3":{"result":{"temp":4}}}')
    expect(answersSummary(answers)).toBe('Approved delete_file.\nDenied delete_file: too risky\nSupplied the result of lookup_weather.')
    expect(answersSummary([{ ...answers[1]!, decision: { approved: false } }])).toBe('Denied delete_file.')
  })

  it('show the calls decided as the store will read them', () => {
    expect(decidedTool(tool(), { approved: true })).toMatchObject({ status: 'approved', error: null })
    expect(decidedTool(tool(), { approved: false })).toMatchObject({ status: 'denied', error: 'Denied.' })
    const supplied = decidedTool(tool({ providerStatus: 'external' }), { result: 'sunny' })
    expect(supplied).toMatchObject({ status: 'success', result: 'sunny' })
    expect(pauseKindOf(supplied)).toBe('external')
  })

  it('overlay the thread by either id, and the thread then waits for nothing', () => {
    const items: ThreadItem[] = [
      { kind: 'user', id: 'm1', text: 'Clean up', attachments: [] },
      {
        kind: 'assistant',
        id: 'm2',
        streaming: false,
        meta: null,
        parts: [
          { type: 'tool', id: 't1', tool: tool({ callId: 'inv1' }) },
          { type: 'tool', id: 't2', tool: tool({ callId: 'c2' }) },
          { type: 'tool', id: 't3', tool: tool({ callId: 'c3', name: 'lookup_weather', providerStatus: 'external' }) },
          { type: 'text', id: 'x', text: 'Waiting.', streaming: false },
        ],
      },
    ]
    expect([...awaitingKinds(items)].sort()).toEqual(['approval', 'external'])
    const decided = withAnswers(items, answers)
    const assistant = decided[1] as Extract<ThreadItem, { kind: 'assistant' }>
    expect(pausedTools(assistant.parts).map((t) => t.status)).toEqual(['approved', 'denied', 'success'])
    expect(awaitingKinds(decided).size).toBe(0)
    expect(withAnswers(items, [])).toBe(items)
  })

  it('a pasted result is JSON when it parses, else the text', () => {
    expect(readResult('{"temp": 4}')).toEqual({ temp: 4 })
    expect(readResult('42')).toBe(42)
    expect(readResult('sunny, 4 °C')).toBe('sunny, 4 °C')
  })

  it('a call that never paused is not one of them', () => {
    expect(pauseKindOf(tool({ status: 'success', providerStatus: null }))).toBeNull()
    expect(pauseKindOf(tool({ status: 'success', providerStatus: 'approval' }))).toBeNull()
    expect(pauseKindOf(tool({ kind: 'native', providerStatus: 'approval' }))).toBeNull()
  })
})
