"""One writer thread per store: chat turns hand it their writes and never wait on the database.

A turn produces many small writes (the user message, a pending row per tool call, its completion,
a ledger row per model request, the final answer). Running each in the event loop would block it;
running each in the shared threadpool would make concurrent SQLite writers queue on the file lock.
Instead every write is a function of a `Connection`, put on a FIFO queue; one thread takes whatever
has queued up and commits it in a single transaction. So writes of one turn land in order, a
hundred concurrent streams cost a handful of transactions, and SQLite never sees two writers from
this process ("database is locked" cannot happen here; other processes wait on the busy timeout).

Writes nobody waits for (`submit`) linger up to `LINGER_S` before they are committed; a write that
is waited for (`run`, `drain`) commits everything queued before it at once. A turn faster
than the linger (most turns of a fast model) therefore costs one transaction and one wake-up of
the writer thread, at its end; a slow turn's rows still reach the database within `LINGER_S` of
being produced (a crash loses at most that much). Waking the writer for every small write would
have it compete with the event loop for the GIL that often.

Trace rows go on a second lane (`submit(after=True)`): committed in transactions of their own, in
batches of at most `_LATER_BATCH`, while no turn's write is queued (a turn's first write waits in
the queue until its final one, so that means between turns), and at the latest `LATER_MAX_S` after
they were queued. A turn's final write therefore rarely finds the writer inside a trace batch, and
never behind more than one small one: with the GIL, a batch that runs while the event loop is busy
takes several times as long, since each database call has to win the interpreter back. Nothing
refers to trace rows, so the order between the lanes does not matter; each lane keeps its own order.

A batch that fails is retried one write per transaction, so one bad write cannot lose the others.
A write that fails is logged, raised to whoever waits for it, and kept as `last_failure` (what
`GET /api/health` reports) until a later batch commits; `TurnWrites` tells a turn whether any of
its own writes failed. A write that raises a `BaseException` (a `CancelledError`, a `SystemExit`)
fails like any other write: the thread goes on. Should the thread itself ever die, every write
still queued fails with the reason and every later one is refused at once: nobody waits forever
for a writer that is gone.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from sqlalchemy import Connection

from .engine import writer
from .prepared import execute
from .repository import Store

logger = logging.getLogger('synapse.store')

T = TypeVar('T')
WriteOp = Callable[[Connection], T]

_MAX_BATCH = 256
LINGER_S = 0.05
"""Longest a write nobody waits for stays queued before it is committed."""
LATER_MAX_S = 1.0
"""Longest a trace row waits for a moment with no turn's write queued."""
_LATER_BATCH = 16


@dataclass(frozen=True)
class Statement:
    """A write that is one prepared statement and its parameters.

    Consecutive `Statement` writes of the same statement in a batch run as one `executemany`
    (ten tool calls starting together are one INSERT).
    """

    statement: Any
    params: dict[str, Any]

    def __call__(self, connection: Connection) -> None:
        execute(connection, self.statement, self.params)


@dataclass
class _Item:
    op: WriteOp[Any]
    future: Future[Any]
    urgent: bool = False


@dataclass
class _Lane:
    """Writes waiting for the writer, in order."""

    items: list[_Item] = field(default_factory=list)
    oldest: float = 0.0
    """When the oldest queued write was queued (`time.monotonic()`)."""
    urgent: int = 0
    """How many queued writes someone waits for: the writer commits at once while this is > 0."""

    def add(self, item: _Item) -> bool:
        """Queue `item`; whether the writer has something new to do."""
        if not self.items:
            self.oldest = time.monotonic()
        self.items.append(item)
        self.urgent += item.urgent
        return item.urgent or len(self.items) == 1 or len(self.items) >= _MAX_BATCH

    def due(self, linger: float) -> float:
        return self.oldest + linger

    def ready(self, now: float, linger: float, closing: bool) -> bool:
        """Whether its next batch is to be committed now."""
        if not self.items:
            return False
        return bool(self.urgent) or closing or len(self.items) >= _MAX_BATCH or now >= self.due(linger)

    def take(self, limit: int = _MAX_BATCH) -> list[_Item]:
        batch = self.items[:limit]
        del self.items[:limit]  # what is left was queued after the old `oldest`
        self.urgent -= sum(1 for item in batch if item.urgent)
        return batch


def _nothing(_connection: Connection) -> None:
    """A write that writes nothing: waiting for it waits for everything queued before it."""


class WriteQueue:
    """A FIFO of writes (functions of a `Connection`) committed by one background thread, in batches."""

    def __init__(self, store: Store, *, name: str = 'synapse-writer', linger: float = LINGER_S) -> None:
        self.store = store
        self.linger = linger
        self._engine = writer(store.engine)
        self._lanes = (_Lane(), _Lane())
        """The turns' writes, and the writes that come `after` them (trace rows)."""
        self._wake = threading.Condition(threading.Lock())
        self._closed = False
        self._stopped: BaseException | None = None
        """Why the writer thread died (None while it runs, or once closed normally)."""
        self._batch: list[_Item] = []
        """The batch being committed (failed with the rest should the thread die in it)."""
        self._connection: Connection | None = None
        self.batches = 0
        self.writes = 0
        self.last_failure: str | None = None
        """Why the last write failed, until a later batch commits (`store_error_text`)."""
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, op: WriteOp[T], *, after: bool = False) -> Future[T]:
        """Queue `op`; the returned future resolves once it is committed (at the latest `linger` later).

        `after`: a write nothing else waits on or refers to (a trace row): it goes on a lane of its
        own, committed in its own transactions once no write someone waits for is queued, so it
        never delays a turn's final write.
        """
        return self._put(op, urgent=False, after=after)

    async def run(self, op: WriteOp[T]) -> T:
        """Queue `op`, commit it with everything queued before it, and wait without blocking the loop."""
        return await asyncio.wrap_future(self.start(op))

    def start(self, op: WriteOp[T]) -> Future[T]:
        """Queue `op` to be committed at once with everything queued before it, as `run` does,
        without waiting: the returned future resolves once it is committed."""
        return self._put(op, urgent=True)

    async def drain(self) -> None:
        """Wait until everything queued so far is committed (on both lanes)."""
        later = self._put(_nothing, urgent=True, after=True)
        await self.run(_nothing)
        await asyncio.wrap_future(later)

    def close(self, timeout: float = 10) -> None:
        """Commit what is queued, then stop the thread."""
        with self._wake:
            if self._closed:
                return
            self._closed = True
            self._wake.notify()
        self._thread.join(timeout)

    def report(self, error: BaseException) -> None:
        """Keep `error` as the last failure: a turn that could not be saved says so after its last write."""
        self.last_failure = store_error_text(error)

    def _put(self, op: WriteOp[T], *, urgent: bool, after: bool = False) -> Future[T]:
        future: Future[T] = Future()
        with self._wake:
            if self._stopped is not None:
                raise WriterStopped(self._stopped)
            if self._closed:
                raise RuntimeError('the write queue is closed')
            lane = self._lanes[after]
            # Wake the writer only when it has something new to do: a write someone waits for, the
            # first write of a batch (it starts the linger clock), or a full batch.
            if lane.add(_Item(op, future, urgent)):
                self._wake.notify()
        return future

    def _run(self) -> None:
        try:
            self._serve()
        except BaseException as exc:  # a fault of the queue itself: fail its waiters, never hang them
            self._stop(exc)  # logged there; the thread ends

    def _stop(self, reason: BaseException) -> None:
        with self._wake:
            self._stopped = reason
            pending = [*self._batch, *(item for lane in self._lanes for item in lane.items)]
            for lane in self._lanes:
                lane.items.clear()
                lane.urgent = 0
        logger.critical('the Synapse writer thread stopped', exc_info=reason)
        self.last_failure = store_error_text(WriterStopped(reason))
        for item in pending:
            if not item.future.done():
                item.future.set_exception(WriterStopped(reason))

    def _serve(self) -> None:
        main, later = self._lanes
        while True:
            with self._wake:
                while not (main.items or later.items or self._closed):
                    self._wake.wait()
                if not (main.items or later.items):
                    if self._connection is not None:
                        self._connection.close()
                    return  # closed, and everything is committed
                while True:
                    now = time.monotonic()
                    if main.ready(now, self.linger, self._closed):
                        batch, lane = main.take(), main
                        break
                    if later.ready(now, self.linger, self._closed) and (
                        not main.items or later.urgent or self._closed or now >= later.due(LATER_MAX_S)
                    ):
                        batch, lane = later.take(_LATER_BATCH), later
                        break
                    self._wake.wait(self._next_due(now))
            # Only the turns' writes say the store is well again (`last_failure`): a trace row can
            # commit where a turn's rows could not.
            self._batch = batch
            self._commit(batch, heals=lane is main)
            self._batch = []

    def _next_due(self, now: float) -> float:
        """How long the writer may sleep: until the main lane's batch is due, else the trace lane's
        (its linger, or `LATER_MAX_S` while turns' writes are queued)."""
        main, later = self._lanes
        moments = []
        if main.items:
            moments.append(main.due(self.linger))
        if later.items:
            moments.append(later.due(LATER_MAX_S if main.items else self.linger))
        return max(min(moments) - now, 0.0)

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """A write transaction. On SQLite the writer keeps its one connection (a pool checkout and
        check-in per batch cost more than a small batch); PostgreSQL checks a connection out of
        the pool each time, so a connection the server dropped is replaced (pre-ping)."""
        if self.store.dialect != 'sqlite':
            with self._engine.begin() as connection:
                yield connection
            return
        if self._connection is None or self._connection.invalidated or self._connection.closed:
            self._connection = self._engine.connect()
        with self._connection.begin():
            yield self._connection

    def _commit(self, batch: list[_Item], *, heals: bool = True) -> None:
        results: list[Any] = []
        try:
            with self._transaction() as connection:
                index = 0
                while index < len(batch):
                    op = batch[index].op
                    if isinstance(op, Statement):
                        end = index + 1
                        while end < len(batch):
                            following = batch[end].op
                            if (
                                not isinstance(following, Statement)
                                or following.statement is not op.statement
                            ):
                                break
                            end += 1
                        if end - index > 1:
                            rows = [cast('Statement', item.op).params for item in batch[index:end]]
                            execute(connection, op.statement, rows)
                            results.extend([None] * (end - index))
                            index = end
                            continue
                    results.append(_guarded(op, connection))
                    index += 1
        except Exception:
            if len(batch) == 1:
                self._fail(batch[0])
                return
            for item in batch:
                self._commit([item], heals=heals)
            return
        self.batches += 1
        self.writes += len(batch)
        if heals:
            self.last_failure = None
        for item, result in zip(batch, results, strict=True):
            if not item.future.done():
                item.future.set_result(result)

    def _fail(self, item: _Item) -> None:
        # The exception is also raised to whoever awaits the future; logging it here keeps a
        # fire-and-forget write from failing silently.
        import sys

        exc = sys.exc_info()[1] or RuntimeError('write failed')
        logger.error('a Synapse store write failed', exc_info=exc)
        self.last_failure = store_error_text(exc)
        if not item.future.done():
            item.future.set_exception(exc)


class WriterStopped(RuntimeError):
    """The writer thread died: the write was not committed, and nothing more will be."""

    def __init__(self, reason: BaseException) -> None:
        super().__init__(f'the store writer stopped: {type(reason).__name__}: {reason}')


class WriteFailed(Exception):
    """A write raised a `BaseException` that is not an `Exception` (kept as the cause)."""


def _guarded(op: WriteOp[T], connection: Connection) -> T:
    """Run `op`; a `BaseException` it raises becomes a `WriteFailed`, so it fails this write only."""
    try:
        return op(connection)
    except Exception:
        raise
    except BaseException as exc:
        raise WriteFailed(f'the write raised {type(exc).__name__}: {exc}') from exc


class TurnWrites:
    """The writes of one turn on a `WriteQueue`, remembering the first of them that failed."""

    def __init__(self, queue: WriteQueue) -> None:
        self.queue = queue
        self.failure: BaseException | None = None
        """The first of these writes that failed (set by the writer thread when it fails)."""

    def submit(self, op: WriteOp[T]) -> Future[T]:
        """`WriteQueue.submit`, watched."""
        future = self.queue.submit(op)
        future.add_done_callback(self._done)
        return future

    async def run(self, op: WriteOp[T]) -> T:
        """`WriteQueue.run`, watched."""
        return await asyncio.wrap_future(self.start(op))

    def start(self, op: WriteOp[T]) -> Future[T]:
        """Queue `op` to be committed at once with everything queued before it, as `run` does,
        without waiting: await the returned future (`asyncio.wrap_future`) when its outcome is needed."""
        future = self.queue.start(op)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future[Any]) -> None:
        if self.failure is None and not future.cancelled():
            self.failure = future.exception()


def store_error_text(error: BaseException) -> str:
    """What a failed write says, in one line: the driver's own message ("database or disk is full"),
    without SQLAlchemy's statement and parameters (which would repeat the user's message)."""
    from sqlalchemy.exc import DBAPIError

    cause = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    text = str(cause).strip().splitlines()
    return text[0] if text else type(cause).__name__
