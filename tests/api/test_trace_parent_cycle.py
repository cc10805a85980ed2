"""A trace whose stored runs name each other as parents (a tampered or corrupted `trace_runs`)
answers at once: each run appears once, and the run whose parent would close the loop is marked
`corrupt` and shown as the top of what it holds."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient
from sqlalchemy import text

from synapse_agents.store import Store

COLUMNS = (
    'agent_run_id, parent_run_id, root_run_id, depth, is_root, origin, module, trace_id, span_id, '
    'status, input_tokens, output_tokens, model_calls, tool_calls, started_at, finished_at, duration_ms'
)


def insert_run(store: Store, run_id: str, parent: str, started: str) -> None:
    with store.engine.begin() as connection:
        connection.execute(
            text(
                f'INSERT INTO trace_runs ({COLUMNS}) VALUES (:id, :parent, :root, 1, :no, :origin, '
                "'chat', :trace, :span, 'ok', 0, 0, 0, 0, :started, :started, 0)"
            ),
            {
                'id': run_id,
                'parent': parent,
                'root': 'run-a',
                'no': False,
                'origin': 'direct',
                'trace': '0' * 32,
                'span': run_id[-1] * 16,
                'started': started,
            },
        )


def test_a_parent_cycle_answers_at_once_and_marks_the_run_that_closes_it(
    client: TestClient, store: Store
) -> None:
    insert_run(store, 'run-a', 'run-c', '2026-01-01 10:00:00')
    insert_run(store, 'run-b', 'run-a', '2026-01-01 10:00:01')
    insert_run(store, 'run-c', 'run-b', '2026-01-01 10:00:02')
    started = time.monotonic()
    for run_id in ('run-a', 'run-b', 'run-c'):
        response = client.get(f'/api/traces/{run_id}')
        assert response.status_code == 200, response.text
        node = response.json()['root']
        seen: list[str] = []
        stack = [node]
        while stack:
            current = stack.pop()
            if current['kind'] == 'run':
                seen.append(current['agent_run_id'])
            stack.extend(current.get('children', []))
        assert len(seen) == len(set(seen)) <= 3
    assert time.monotonic() - started < 5
    # Runs take their parents in the order they started: the last one's would close the loop.
    tree = client.get('/api/traces/run-c').json()['root']
    flagged = [tree] if tree.get('corrupt') else []
    stack = list(tree['children'])
    while stack:
        current = stack.pop()
        if current.get('corrupt'):
            flagged.append(current)
        stack.extend(current.get('children', []))
    assert [node['agent_run_id'] for node in flagged] == ['run-c']
    assert [child['agent_run_id'] for child in tree['children']] == ['run-a']
    assert 'cycle' in flagged[0]['corrupt']
    assert client.get('/api/traces').status_code == 200
