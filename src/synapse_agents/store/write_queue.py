"""One writer thread per store: chat turns hand it their writes and never wait on the database.

A turn produces many small writes (the user message, a pending row per tool call, its completion,
a ledger row per model request, the final answer). Running each in the event loop would block it;
running each in the shared threadpool would make concurrent SQLite writers queue on the file lock.
Instead every write is a function of a `Connection`, put on a FIFO queue; one thread takes whatever
has queued up and commits it in a single transaction. So writes of one turn land in order, a
hundred concurrent streams cost a handful of transactions, and SQLite never sees two writers from
this process ("database is locked" cannot happen here; other processes wait on the busy timeout).

A batch that fails is retried one write per transaction, so one bad write cannot lose the others.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from sqlalchemy import Connection

from .engine import writer
from .repository import Store

logger = logging.getLogger('synapse.store')

T = TypeVar('T')
WriteOp = Callable[[Connection], T]

_MAX_BATCH = 256


@dataclass(frozen=True)
class Statement:
    """A write that is one prepared statement and its parameters.

    Consecutive `Statement` writes of the same statement in a batch run as one `executemany`
    (ten tool calls starting together are one INSERT).
    """

    statement: Any
    params: dict[str, Any]

    def __call__(self, connection: Connection) -> None:
        connection.execute(self.statement, self.params)


@dataclass
class _Item:
    op: WriteOp[Any]
    future: Future[Any]


class WriteQueue:
    """A FIFO of writes (functions of a `Connection`) committed by one background thread, in batches."""

    def __init__(self, store: Store, *, name: str = 'synapse-writer') -> None:
        self.store = store
        self._engine = writer(store.engine)
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self.batches = 0
        self.writes = 0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, op: WriteOp[T]) -> Future[T]:
        """Queue `op`; the returned future resolves once it is committed (or failed)."""
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError('the write queue is closed')
            self._queue.put(_Item(op, future))
        return future

    async def run(self, op: WriteOp[T]) -> T:
        """Queue `op` and wait, without blocking the event loop, until it is committed."""
        return await asyncio.wrap_future(self.submit(op))

    def flush(self, timeout: float | None = 10) -> None:
        """Block until everything queued so far is committed."""
        self.submit(lambda _session: None).result(timeout)

    async def drain(self) -> None:
        """Wait until everything queued so far is committed."""
        await self.run(lambda _session: None)

    def close(self, timeout: float = 10) -> None:
        """Commit what is queued, then stop the thread."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < _MAX_BATCH:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            self._commit(batch)

    def _commit(self, batch: list[_Item]) -> None:
        results: list[Any] = []
        try:
            with self._engine.begin() as connection:
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
                            connection.execute(
                                op.statement, [cast('Statement', item.op).params for item in batch[index:end]]
                            )
                            results.extend([None] * (end - index))
                            index = end
                            continue
                    results.append(op(connection))
                    index += 1
        except Exception:
            if len(batch) == 1:
                self._fail(batch[0])
                return
            for item in batch:
                self._commit([item])
            return
        self.batches += 1
        self.writes += len(batch)
        for item, result in zip(batch, results, strict=True):
            if not item.future.done():
                item.future.set_result(result)

    @staticmethod
    def _fail(item: _Item) -> None:
        # The exception is also raised to whoever awaits the future; logging it here keeps a
        # fire-and-forget write from failing silently.
        import sys

        exc = sys.exc_info()[1]
        logger.error('a Synapse store write failed', exc_info=exc)
        if not item.future.done():
            item.future.set_exception(exc if exc is not None else RuntimeError('write failed'))
