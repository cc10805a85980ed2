// A run's line says how long ago it ended, never "in …": the page's clock may lag the server's.
import { render, screen } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import type { TaskSummary } from './api'
import { RunLine } from './RunLine'

const NOW = Date.parse('2026-05-11T07:00:00.000Z')

function finishedAt(iso: string): TaskSummary {
  return {
    id: 't1', standing_agent_id: 's1', agent: 'a', trigger: 'manual', event: null, fires: 1, slot_at: null, tenant: null, subject: null,
    status: 'succeeded', cancel_requested: false, worker: 'host:1', queued_at: iso, not_before: iso, started_at: iso, heartbeat_at: iso,
    finished_at: iso, duration_ms: 1000, input_tokens: 1, output_tokens: 1, cost: null, error: null, conversation_id: null,
  }
}

function shown(task: TaskSummary): string {
  render(<MemoryRouter><ul><RunLine task={task} now={NOW} /></ul></MemoryRouter>)
  return screen.getByRole('link').querySelector('time')?.textContent ?? ''
}

test('a run that ended a moment after the page read its clock ended "just now"', () => {
  expect(shown(finishedAt('2026-05-11T07:00:05.000Z'))).toBe('just now')
})

test('an older run says how long ago it ended', () => {
  expect(shown(finishedAt('2026-05-11T06:50:00.000Z'))).toBe('10 min ago')
})
