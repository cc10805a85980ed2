"""A trace whose runs nest far deeper than any real delegation (each run started inside the one
before it) answers at once over HTTP and on the command line: the tree down to `MAX_TREE_DEPTH`
levels, the run at the edge marked with how much is below it, and that run's own trace going on
from there, until every level has been seen."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import typer
from fastapi.testclient import TestClient
from sqlalchemy import insert
from typer.testing import CliRunner, Result

from synapse_agents.store import Store
from synapse_agents.traces.cli import traces_app
from synapse_agents.traces.edge import MAX_TREE_DEPTH
from synapse_agents.traces.tables import DebugLog, TraceRun, TraceTool

BEGAN = datetime(2026, 1, 1, 10, tzinfo=UTC)


def run_id(level: int) -> str:
    return f'deep-{level:05d}'


def insert_chain(store: Store, levels: int) -> None:
    """Runs `deep-00000` (the root) to `deep-{levels - 1}`: each makes a model call, then calls a
    tool, and the next run is started inside that tool (the last run's tool starts none)."""
    runs, calls, tools = [], [], []
    for level in range(levels):
        at = BEGAN + timedelta(milliseconds=10 * level)
        common = {'root_run_id': run_id(0), 'agent_run_id': run_id(level)}
        runs.append(
            {
                **common,
                'parent_run_id': run_id(level - 1) if level else None,
                'parent_span_id': f'{level - 1:015x}t' if level else None,
                'depth': level,
                'is_root': level == 0,
                'origin': 'direct',
                'module': 'chat',
                'trace_id': '0123456789abcdef0123456789abcdef',
                'span_id': f'{level:015x}r',
                'status': 'ok',
                'model_calls': 1,
                'tool_calls': 1,
                'started_at': at,
                'finished_at': at,
            }
        )
        calls.append(
            {
                **common,
                'id': f'call-{level:05d}',
                'depth': level,
                'origin': 'direct',
                'module': 'chat',
                'action': 'chat_turn',
                'span_id': f'{level:015x}c',
                'data': zlib.compress(b'{}'),
                'started_at': at + timedelta(milliseconds=1),
            }
        )
        tools.append(
            {
                **common,
                'id': f'tool-{level:05d}',
                'name': 'delegate',
                'span_id': f'{level:015x}t',
                'started_at': at + timedelta(milliseconds=2),
            }
        )
    with store.engine.begin() as connection:
        connection.execute(insert(TraceRun), runs)
        connection.execute(insert(DebugLog), calls)
        connection.execute(insert(TraceTool), tools)


def runs_down(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The chain of runs from `node` down (run, its tool, the run in that tool...), without recursion."""
    chain = [node]
    while True:
        tools = [child for child in chain[-1]['children'] if child['kind'] == 'tool']
        nested = [child for tool in tools for child in tool['children']]
        if not nested:
            return chain
        assert len(nested) == 1 and nested[0]['kind'] == 'run'
        chain.append(nested[0])


SHOWN = MAX_TREE_DEPTH // 2
"""Runs below the top of one answer: a run and its tool call are two levels."""


def page(get: Callable[[str], dict[str, Any]], start: str, levels: int) -> tuple[list[str], str | None]:
    """The runs of the answer about run `start`, and the run it ends at (None: it shows the last)."""
    began = time.monotonic()
    chain = runs_down(get(start))
    # About 0.4 s on 2,000 runs on a quiet machine; the bound only catches a hang or a blow-up.
    assert time.monotonic() - began < 20
    assert chain[0]['agent_run_id'] == start
    edge = chain[-1]
    level = int(edge['agent_run_id'].split('-')[1])
    for node in chain[:-1]:
        assert [child['kind'] for child in node['children']] == ['model', 'tool'], node['id']
        assert node['hidden'] is None
    ids = [node['agent_run_id'] for node in chain]
    if len(chain) <= SHOWN:
        assert level == levels - 1 and edge['hidden'] is None
        assert [child['kind'] for child in edge['children']] == ['model', 'tool']
        return ids, None
    # The run the answer ends at is shown without what ran inside it, and says how much.
    assert len(chain) == SHOWN + 1 and edge['children'] == []
    assert edge['hidden'] == 2 + 3 * (levels - 1 - level)  # a call and a tool, then 3 a level
    return ids, edge['agent_run_id']


def follow(get: Callable[[str], dict[str, Any]], levels: int) -> list[str]:
    """Every run's id, reading the tree from the root, then on from the run each answer ends at."""
    seen, edge = page(get, run_id(0), levels)
    while edge is not None:
        ids, edge = page(get, edge, levels)
        seen.extend(ids[1:])
    return seen


@pytest.mark.parametrize('levels', [150, 2000])
def test_a_deep_trace_answers_level_by_level_over_http(client: TestClient, store: Store, levels: int) -> None:
    insert_chain(store, levels)

    def get(start: str) -> dict[str, Any]:
        response = client.get(f'/api/traces/{start}')
        assert response.status_code == 200, response.text[:500]
        root: dict[str, Any] = response.json()['root']
        return root

    assert follow(get, levels) == [run_id(level) for level in range(levels)]
    page = client.get('/api/traces')
    assert page.status_code == 200, page.text[:500]
    assert [root['agent_run_id'] for root in page.json()['roots']] == [run_id(0)]
    assert client.get('/api/traces', params={'errors': True}).json()['roots'] == []


def invoke(*args: str) -> Result:
    """`synapse traces ARGS` through Typer's runner; it must succeed."""
    cli = typer.Typer()
    cli.add_typer(traces_app, name='traces')
    result = CliRunner().invoke(cli, ['traces', *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == 0, result.output[:500]
    return result


@pytest.mark.parametrize('levels', [150, 2000])
def test_a_deep_trace_shows_level_by_level_on_the_command_line(
    store: Store, monkeypatch: pytest.MonkeyPatch, levels: int
) -> None:
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('COLUMNS', '200')
    insert_chain(store, levels)

    def get(start: str) -> dict[str, Any]:
        root: dict[str, Any] = json.loads(invoke('show', start, '--json').stdout)['root']
        return root

    if levels <= 150:
        assert follow(get, levels) == [run_id(level) for level in range(levels)]
    else:  # the first answer and the last (each answer reads the whole tree: following all is slow)
        assert page(get, run_id(0), levels)[1] == run_id(SHOWN)
        last = run_id((levels - 1) // SHOWN * SHOWN)
        assert page(get, last, levels) == ([last, *map(run_id, range(int(last[5:]) + 1, levels))], None)
    printed = invoke('show', run_id(0)).stdout
    shown = [level for level in range(levels) if f'run {run_id(level)}' in printed]
    assert shown == list(range(SHOWN + 1))
    assert f'more below: synapse traces show {run_id(SHOWN)}' in printed
    assert invoke('list').stdout.count(run_id(0)) == 1
