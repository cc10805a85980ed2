"""In-flight work is owned: a sweep interrupts only the turns of processes that are gone."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta

from sqlalchemy import Connection, select, update

from synapse_agents.conversations.tables import Message, ToolInvocation
from synapse_agents.conversations.turn_writes import TurnStart, begin_turn, sweep_in_flight, tool_started
from synapse_agents.store import Store
from synapse_agents.store.engine import writer
from synapse_agents.store.ids import new_id
from synapse_agents.store.instances import Instance, current, heartbeat, retire
from synapse_agents.store.schema import StoreInstance, utcnow

ELSEWHERE = 'another-machine/pid:[1]'
"""A `pid_scope` no process of this test shares: only the heartbeat lease decides for it."""


def start_turn(connection: Connection, owner: str | None) -> str:
    """A turn in flight owned by `owner`: a streaming answer and a pending tool call; its answer id."""
    conversation, answer = new_id(), new_id()
    begin_turn(TurnStart(conversation, True, 'a', 'a', new_id(), new_id(), answer, 'hi', owner=owner or 'x'))(
        connection
    )
    tool_started(
        {
            'id': new_id(),
            'conversation_id': conversation,
            'message_id': answer,
            'run_id': None,
            'tool_call_id': new_id(),
            'kind': 'function',
            'name': 'slow',
            'arguments': {},
            'status': 'pending',
            'started_at': utcnow(),
            'owner': owner,
        }
    )(connection)
    if owner is None:  # as written before owners were recorded
        connection.execute(update(Message).where(Message.id == answer).values(owner=None))
    return answer


def statuses(store: Store, answer: str) -> tuple[str, list[str]]:
    with store.read() as session:
        message = session.get(Message, answer)
        assert message is not None
        tools = session.scalars(select(ToolInvocation.status).where(ToolInvocation.message_id == answer))
        return message.status, list(tools)


def sweep(store: Store, instance: Instance) -> tuple[int, int]:
    with writer(store.engine).begin() as connection:
        return sweep_in_flight(connection, instance)


def test_a_sweep_leaves_another_live_process_s_turn_alone(store: Store) -> None:
    other, me = Instance(pid_scope=ELSEWHERE), Instance()
    with writer(store.engine).begin() as connection:
        heartbeat(connection, other)
        theirs = start_turn(connection, other.id)
        mine = start_turn(connection, me.id)
    assert sweep(store, me) == (0, 0)
    assert statuses(store, theirs) == ('streaming', ['pending'])
    assert statuses(store, mine) == ('streaming', ['pending'])
    # ... and the other process's sweep leaves this one's (it heart-beat in its own sweep).
    assert sweep(store, other) == (0, 0)
    assert statuses(store, mine) == ('streaming', ['pending'])


def test_a_process_whose_heartbeat_is_older_than_the_lease_is_swept(store: Store) -> None:
    gone, me = Instance(pid_scope=ELSEWHERE), Instance()
    with writer(store.engine).begin() as connection:
        heartbeat(connection, gone)
        answer = start_turn(connection, gone.id)
        connection.execute(
            update(StoreInstance)
            .where(StoreInstance.id == gone.id)
            .values(heartbeat_at=utcnow() - timedelta(seconds=31))
        )
    assert sweep(store, me) == (1, 1)
    assert statuses(store, answer) == ('interrupted', ['interrupted'])
    with store.read() as session:  # its row is gone; the sweeper's own is there
        assert set(session.scalars(select(StoreInstance.id))) == {me.id}


def test_a_fresh_heartbeat_is_kept_until_the_lease_runs_out(store: Store) -> None:
    other, me = Instance(pid_scope=ELSEWHERE), Instance()
    with writer(store.engine).begin() as connection:
        heartbeat(connection, other)
        answer = start_turn(connection, other.id)
        connection.execute(
            update(StoreInstance)
            .where(StoreInstance.id == other.id)
            .values(heartbeat_at=utcnow() - timedelta(seconds=20))
        )
    assert sweep(store, me) == (0, 0)
    assert statuses(store, answer) == ('streaming', ['pending'])


def test_on_this_machine_a_dead_process_is_swept_at_once_and_a_live_one_never(store: Store) -> None:
    me = Instance()
    dead_pid = subprocess.Popen([sys.executable, '-c', 'pass'])
    dead_pid.wait()
    alive = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'])
    try:
        dead = Instance(pid=dead_pid.pid, pid_scope=me.pid_scope)
        running = Instance(pid=alive.pid, pid_scope=me.pid_scope)
        with writer(store.engine).begin() as connection:
            heartbeat(connection, dead)  # a fresh heartbeat, but its process has exited
            heartbeat(connection, running)
            dead_answer = start_turn(connection, dead.id)
            live_answer = start_turn(connection, running.id)
            connection.execute(  # long silent, but its process runs
                update(StoreInstance)
                .where(StoreInstance.id == running.id)
                .values(heartbeat_at=utcnow() - timedelta(hours=1))
            )
        assert me.pid_scope is not None
        assert sweep(store, me) == (1, 1)
        assert statuses(store, dead_answer) == ('interrupted', ['interrupted'])
        assert statuses(store, live_answer) == ('streaming', ['pending'])
    finally:
        alive.kill()
        alive.wait()


def test_turns_with_no_owner_or_a_retired_owner_are_swept(store: Store) -> None:
    stopped, me = Instance(pid_scope=ELSEWHERE), Instance()
    with writer(store.engine).begin() as connection:
        legacy = start_turn(connection, None)
        heartbeat(connection, stopped)
        left = start_turn(connection, stopped.id)
        retire(connection, stopped)
    assert sweep(store, me) == (2, 2)
    assert statuses(store, legacy) == ('interrupted', ['interrupted'])
    assert statuses(store, left) == ('interrupted', ['interrupted'])


def test_a_turn_and_its_tool_calls_are_owned_by_this_process_by_default(store: Store) -> None:
    with writer(store.engine).begin() as connection:
        conversation, answer = new_id(), new_id()
        begin_turn(TurnStart(conversation, True, 'a', 'a', new_id(), new_id(), answer, 'hi'))(connection)
        row = {'id': new_id(), 'conversation_id': conversation, 'message_id': answer, 'run_id': None}
        tool_started({**row, 'tool_call_id': 'c', 'kind': 'function', 'name': 't', 'arguments': {},
                      'status': 'pending', 'started_at': utcnow()})(connection)  # fmt: skip
    with store.read() as session:
        assert session.scalars(select(Message.owner).where(Message.role == 'assistant')).one() == current().id
        assert session.scalars(select(ToolInvocation.owner)).one() == current().id
    # This process's own turn is never swept by itself.
    assert sweep(store, current()) == (0, 0)
