"""The write queue's two lanes: a turn's waited-for writes never wait behind trace rows, and each
lane keeps its order, on every selected database."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import Connection, text

from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteFailed, WriteQueue, WriterStopped

pytestmark = pytest.mark.anyio


@contextmanager
def opened(queue: WriteQueue) -> Iterator[WriteQueue]:
    """`queue`, closed when the block ends."""
    try:
        yield queue
    finally:
        queue.close()


def noting(seen: list[str], name: str) -> Callable[[Connection], str]:
    """A write that notes it ran (and on which thread), after touching the database."""

    def op(connection: Connection) -> str:
        connection.execute(text('SELECT 1'))
        seen.append(f'{name}@{threading.current_thread().name}')
        return name

    return op


async def test_a_waited_write_commits_without_the_trace_lane_and_drain_commits_both(store: Store) -> None:
    seen: list[str] = []
    with opened(WriteQueue(store, linger=30)) as writes:  # nothing commits on its own during the test
        later = [writes.submit(noting(seen, f'trace-{i}'), after=True) for i in range(3)]
        queued = writes.submit(noting(seen, 'user-message'))
        assert await writes.run(noting(seen, 'answer')) == 'answer'
        assert seen == ['user-message@synapse-writer', 'answer@synapse-writer']
        assert queued.done() and not any(f.done() for f in later)

        await writes.drain()
        assert all(f.done() for f in later)
        assert seen[2:] == [f'trace-{i}@synapse-writer' for i in range(3)]  # in their own order


async def test_the_trace_lane_commits_within_the_linger_and_at_close(store: Store) -> None:
    seen: list[str] = []
    with opened(WriteQueue(store, linger=0.05)) as writes:
        first = writes.submit(noting(seen, 'trace'), after=True)
        await asyncio.wait_for(asyncio.wrap_future(first), timeout=5)
    closing = WriteQueue(store, linger=30)
    last = closing.submit(noting(seen, 'last trace'), after=True)
    closing.close()
    assert last.result(timeout=0) == 'last trace'
    assert [entry.split('@')[0] for entry in seen] == ['trace', 'last trace']


class Interrupted(BaseException):
    """Not an `Exception`: what a cancelled or exiting piece of code raises."""


def interrupted(_connection: Connection) -> None:
    raise Interrupted('stop here')


async def test_a_write_raising_a_base_exception_fails_alone_and_the_writer_goes_on(store: Store) -> None:
    seen: list[str] = []
    with opened(WriteQueue(store, linger=30)) as writes:
        before = writes.submit(noting(seen, 'before'))
        with pytest.raises(WriteFailed, match='Interrupted: stop here'):
            await asyncio.wait_for(writes.run(interrupted), timeout=5)
        assert before.result(timeout=0) == 'before'  # retried alone, committed
        assert await asyncio.wait_for(writes.run(noting(seen, 'after')), timeout=5) == 'after'
        assert [entry.split('@')[0] for entry in seen] == ['before', 'before', 'after']


class BrokenQueue(WriteQueue):
    """A queue whose own commit has a fault (fault injection: what no write can cause)."""

    def _commit(self, batch: object, *, heals: bool = True) -> None:
        raise RuntimeError('a fault in the queue itself')


async def test_a_writer_that_dies_fails_what_is_queued_and_refuses_what_comes(store: Store) -> None:
    with opened(BrokenQueue(store, linger=30)) as writes:
        with pytest.raises(WriterStopped, match='a fault in the queue itself'):
            await asyncio.wait_for(writes.run(noting([], 'never')), timeout=5)
        with pytest.raises(WriterStopped):
            writes.submit(noting([], 'refused'))
        assert writes.last_failure is not None and 'store writer stopped' in writes.last_failure


async def test_trace_rows_wait_while_a_turn_has_writes_queued(store: Store) -> None:
    seen: list[str] = []
    with opened(WriteQueue(store, linger=0.2)) as writes:
        trace = writes.submit(noting(seen, 'trace'), after=True)  # due at 0.2 s
        await asyncio.sleep(0.1)
        turn = writes.submit(noting(seen, 'turn'))  # due at 0.3 s: the trace row waits for it
        await asyncio.wait_for(asyncio.wrap_future(trace), timeout=5)
        assert turn.done()
        assert [entry.split('@')[0] for entry in seen] == ['turn', 'trace']


async def test_trace_rows_go_in_small_batches_once_the_turns_writes_are_committed(store: Store) -> None:
    seen: list[str] = []
    with opened(WriteQueue(store, linger=0.05)) as writes:
        writes.submit(noting(seen, 'user message'))
        traces = [writes.submit(noting(seen, f'trace-{i}'), after=True) for i in range(40)]
        before = writes.batches
        await writes.run(noting(seen, 'answer'))
        await asyncio.wait_for(asyncio.wrap_future(traces[-1]), timeout=5)
        assert [entry.split('@')[0] for entry in seen[:2]] == ['user message', 'answer']
        assert writes.batches - before >= 1 + 3  # the turn, then 40 rows in batches of 16 at most
