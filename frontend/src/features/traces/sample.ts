// A three-level delegation as GET /api/traces/{id} returns it, for the tests: planner calls its
// `research` tool, which runs researcher; researcher's `check_facts` tool runs checker.
import type { ModelCall, TraceNode, TraceRoot } from './api'

const T0 = Date.parse('2026-05-11T07:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

const base = { error: null, cost: null, children: [] as TraceNode[] }

export function runNode(over: Partial<TraceNode> & Pick<TraceNode, 'id' | 'name'>): TraceNode {
  return {
    ...base, kind: 'run', agent_run_id: over.id, status: 'ok', started_at: at(0), duration_ms: 200, input_tokens: 100, output_tokens: 16,
    model: 'test-model', depth: 0, origin: 'code', parent_run_id: null, trace_id: 'ee20c717854cb2cf8fdf6f72a8126d91', model_calls: 2, tool_calls: 1,
    output: null, module: 'chat', agent_key: null, conversation_id: null, message_id: null, ...over,
  }
}

export function modelNode(over: Partial<TraceNode> & Pick<TraceNode, 'id'>): TraceNode {
  return {
    ...base, kind: 'model', name: 'test-model', agent_run_id: 'run-a', status: 'ok', started_at: at(0), duration_ms: 20, input_tokens: 50, output_tokens: 4,
    model: 'test-model', action: 'chat_turn', provider: 'function', finish_reason: 'stop', truncated: false, depth: 0, ...over,
  }
}

export function toolNode(over: Partial<TraceNode> & Pick<TraceNode, 'id' | 'name'>): TraceNode {
  return { ...base, kind: 'tool', agent_run_id: 'run-a', status: 'ok', started_at: at(0), duration_ms: 40, tool_call_id: `call_${over.name}`, arguments: {}, result: null, ...over }
}

/** planner (0–200 ms) → research (60–160) → researcher (70–150) → check_facts (100–130) → checker (105–125). */
export function delegation(): TraceNode {
  const checker = runNode({
    id: 'run-c', name: 'checker', depth: 2, origin: 'direct', parent_run_id: 'run-b', started_at: at(105), duration_ms: 20, model_calls: 1, tool_calls: 0,
    output: 'Checked: the facts hold.',
    children: [modelNode({ id: 'call-c1', agent_run_id: 'run-c', name: 'checker-model', depth: 2, started_at: at(108), duration_ms: 10 })],
  })
  const checkFacts = toolNode({ id: 'tool-b', name: 'check_facts', agent_run_id: 'run-b', started_at: at(100), duration_ms: 30, arguments: { claim: 'tides follow the moon' }, result: 'Checked: the facts hold.', children: [checker] })
  const researcher = runNode({
    id: 'run-b', name: 'researcher', depth: 1, origin: 'direct', parent_run_id: 'run-a', started_at: at(70), duration_ms: 80,
    children: [
      modelNode({ id: 'call-b1', agent_run_id: 'run-b', name: 'check-model', depth: 1, started_at: at(72), duration_ms: 20 }),
      checkFacts,
      modelNode({ id: 'call-b2', agent_run_id: 'run-b', name: 'check-model', depth: 1, started_at: at(132), duration_ms: 15 }),
    ],
  })
  const research = toolNode({ id: 'tool-a', name: 'research', started_at: at(60), duration_ms: 100, arguments: { topic: 'tides' }, result: 'Research done.', children: [researcher] })
  return runNode({
    id: 'run-a', name: 'planner', agent_key: 'agents.delegation.planner', conversation_id: 'conv-1', message_id: 'msg-1', output: 'Plan ready.',
    children: [
      modelNode({ id: 'call-a1', started_at: at(2), duration_ms: 50 }),
      research,
      modelNode({ id: 'call-a2', started_at: at(170), duration_ms: 25, input_tokens: 60, output_tokens: 12, cost: '0.0042' }),
    ],
  })
}

export function rootOf(over: Partial<TraceRoot> = {}): TraceRoot {
  return {
    agent_run_id: 'run-a', parent_run_id: null, depth: 0, origin: 'code', module: 'chat', agent_name: 'planner', agent_key: 'agents.delegation.planner',
    workflow_run_id: null, conversation_id: 'conv-1', message_id: 'msg-1', trace_id: 'ee20c717854cb2cf8fdf6f72a8126d91', model: 'test-model', status: 'ok',
    error: null, input_tokens: 100, output_tokens: 16, cost: null, model_calls: 2, tool_calls: 1, started_at: at(0), duration_ms: 200, ...over,
  }
}

export function callOf(over: Partial<ModelCall> = {}): ModelCall {
  return {
    id: 'call-a2', agent_run_id: 'run-a', parent_run_id: null, root_run_id: 'run-a', depth: 0, origin: 'code', module: 'chat', action: 'chat_turn',
    workflow_run_id: null, conversation_id: 'conv-1', model: 'test-model', provider: 'function', status: 'ok', error: null, input_tokens: 60, output_tokens: 12,
    total_tokens: 72, cost: '0.0042', finish_reason: 'stop', started_at: at(170), duration_ms: 25, truncated: false, data_bytes: 2201,
    data: {
      request: { model: 'test-model', settings: { temperature: 0.2, max_tokens: 300 } },
      usage: { input_tokens: 60, output_tokens: 12 },
      response: { id: 'resp_123', model: 'test-model', finish_reasons: ['stop'] },
      instructions: [{ type: 'text', content: 'Plan the work; hand research to the researcher.' }],
      history: [
        { role: 'user', parts: [{ type: 'text', content: 'Plan the tides study' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_research', name: 'research', arguments: '{"topic": "tides"}' }] },
        { role: 'user', parts: [{ type: 'tool_call_response', id: 'call_research', name: 'research', result: 'Research done.' }] },
      ],
      turns: [{ role: 'assistant', parts: [{ type: 'text', content: 'Plan ready. Research done.' }], finish_reason: 'stop' }],
      tool_definitions: [{ type: 'function', name: 'research', description: 'Ask the researcher.', parameters: { type: 'object' } }],
    },
    ...over,
  }
}
