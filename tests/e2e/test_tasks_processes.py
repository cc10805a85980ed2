"""`synapse scheduler` and `synapse serve` as real processes sharing a database with the test.

Two schedulers tick the same due slots on one PostgreSQL database: each slot queues exactly one
task. A `synapse serve --demo` on SQLite runs, in its in-process worker, the task an event fired
by `synapse tasks fire` (another process) queued.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from fixtures.task_agents import QUICK, SynapseProcess, process_env, wait_until
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.store import Store, upgrade
from synapse_agents.store.schema import utcnow
from synapse_agents.tasks import queue, standing_store
from synapse_agents.tasks.standing_store import StandingInput
from synapse_agents.tasks.tables import AgentTask, StandingAgent

AGENTS = 40
SUPPORT = 'synapse_agents.demo.agents.support-agent'


def tasks_of(store: Store) -> list[AgentTask]:
    with store.read() as session:
        rows = list(session.query(AgentTask).order_by(AgentTask.id))
        session.expunge_all()
        return rows


@pytest.mark.postgresql
@pytest.mark.slow
def test_two_schedulers_fire_each_due_slot_once(empty_postgres_database: str, isolated_env: Path) -> None:
    store = Store.open(empty_postgres_database, isolated_env / 'unused')
    upgrade(store.engine)
    env = process_env(
        database_url=empty_postgres_database, home=str(isolated_env / 'home'), tick_seconds='0.2'
    )
    schedulers = [
        SynapseProcess(['scheduler'], cwd=isolated_env, env=env, name=f'scheduler-{i}') for i in range(2)
    ]
    try:
        ids = {
            standing_store.create(
                store,
                StandingInput(name=f'Yearly {index}', agent=QUICK, instruction='Tick', cron='@yearly'),
            ).id
            for index in range(AGENTS)
        }
        for scheduler in schedulers:
            scheduler.wait_for('Scheduler started')
        seen: set[str] = set()
        for round_number in (1, 2):
            # Every agent falls due at once while both schedulers tick: their claims race on each slot.
            # (A yearly schedule: its next slot never falls due during the test.)
            with store.write() as session:
                session.execute(update(StandingAgent).values(next_fire_at=utcnow() - timedelta(seconds=1)))
            expected = AGENTS * round_number

            def queued(count: int = expected) -> bool:
                return len(tasks_of(store)) >= count

            wait_until(queued, 30, lambda: str(len(tasks_of(store))))
            fired = [task for task in tasks_of(store) if task.id not in seen]
            seen.update(task.id for task in fired)
            assert sorted(task.standing_agent_id or '' for task in fired) == sorted(ids)
            assert {(task.trigger, task.status) for task in fired} == {('schedule', 'queued')}
            assert len({task.slot_at for task in fired}) == 1
        time.sleep(1)  # five more ticks: nothing else is due
        assert len(tasks_of(store)) == AGENTS * 2
        with store.read() as session:
            next_runs = [row.next_fire_at for row in session.query(StandingAgent)]
        assert all(moment is not None and moment > utcnow() for moment in next_runs)
    finally:
        store.close()
        codes = [scheduler.stop(signal.SIGTERM) for scheduler in schedulers]
    assert codes == [0, 0], [scheduler.describe() for scheduler in schedulers]


@pytest.mark.slow
def test_serve_runs_an_event_fired_from_the_command_line(live_server: Any, isolated_env: Path) -> None:
    home = isolated_env.parent / 'home'
    home.mkdir(exist_ok=True)
    store = Store.open(f'sqlite:///{home / "synapse.db"}', home / 'attachments')
    upgrade(store.engine)
    try:
        standing = standing_store.create(
            store,
            StandingInput(
                name='Shipping follow-up',
                agent=SUPPORT,
                instruction='Tell the customer where order A-1001 is.',
                events=['order.shipped'],
                tenant='org:acme',
            ),
        )
        server = live_server(['--demo'])
        fired = subprocess.run(
            [sys.executable, '-m', 'synapse_agents', 'tasks', 'fire', 'order.shipped', '--tenant', 'org:acme',
             '--subject', 'order:A-1001', '--context', '{"order": "A-1001"}', '--json'],
            cwd=isolated_env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert fired.returncode == 0, fired.stderr
        [task_id] = json.loads(fired.stdout)['queued']

        def finished() -> AgentTask | None:
            task = queue.get_task(store, task_id)[0]
            return task if task.status not in ('queued', 'running') else None

        task: AgentTask = wait_until(finished, 30, server.output)
        assert task.status == 'succeeded', task.error
        assert task.standing_agent_id == standing.id and task.context == {'order': 'A-1001'}
        assert task.worker is not None and task.worker.endswith(f':{server.process.pid}:serve')
        conversation = ConversationRepository(store).get(task.conversation_id or '')
        assert conversation is not None and conversation.origin == 'task'
        assert (conversation.tenant_type, conversation.tenant_id) == ('org', 'acme')
    finally:
        store.close()
