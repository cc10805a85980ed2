"""The blocking twin of the Python API, for scripts and notebooks without an event loop of their own.

    from synapse_agents import Synapse

    syn = Synapse()
    conv = syn.conversation_sync(agent, tenant=('firm', '7'))
    print(conv.send('Hello').output)
    syn.close_sync()                  # or leave it to the interpreter's exit

A `Synapse` used this way runs on a private event loop in a thread of its own (anyio's blocking
portal), opened on the first `conversation_sync`, so its jobs (the heartbeat) keep running between
calls; every call is run there and waited for.
"""

from __future__ import annotations

import atexit
import queue
import weakref
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal

from .conversation import AppConversation, Attachment, Reply

if TYPE_CHECKING:
    from pydantic_ai.agent import AbstractAgent


class Synapse(Protocol):
    """What a blocking conversation needs of `synapse.Synapse` (which imports this module)."""

    async def open(self) -> Any: ...

    async def close(self) -> None: ...

    @property
    def conversation(self) -> Callable[..., Awaitable[AppConversation]]: ...


class _Loop:
    """A blocking portal kept open for one `Synapse`."""

    def __init__(self) -> None:
        self.stack = ExitStack()
        self.portal: BlockingPortal = self.stack.enter_context(start_blocking_portal())

    def close(self) -> None:
        self.stack.close()


_loops: weakref.WeakKeyDictionary[Synapse, _Loop] = weakref.WeakKeyDictionary()


def _loop_of(synapse: Synapse) -> _Loop:
    loop = _loops.get(synapse)
    if loop is None:
        loop = _Loop()
        try:
            loop.portal.call(synapse.open)
        except BaseException:
            loop.close()
            raise
        _loops[synapse] = loop
        atexit.register(close_blocking, synapse)
    return loop


def blocking_conversation(
    synapse: Synapse, agent: AbstractAgent[Any, Any] | str, options: dict[str, Any]
) -> BlockingConversation:
    """`Synapse.conversation(agent, **options)`, run on the Synapse's own loop."""
    loop = _loop_of(synapse)

    async def open_conversation() -> AppConversation:
        return await synapse.conversation(agent, **options)

    return BlockingConversation(loop.portal, loop.portal.call(open_conversation))


def open_blocking(synapse: Synapse) -> None:
    """Open `synapse` on its own loop thread (for the blocking methods that need it open)."""
    _loop_of(synapse)


def close_blocking(synapse: Synapse) -> None:
    """Close the Synapse on its loop, then the loop (nothing when it was never opened this way)."""
    loop = _loops.pop(synapse, None)
    if loop is None:
        return
    try:
        loop.portal.call(synapse.close)
    finally:
        loop.close()


class BlockingConversation:
    """An `AppConversation` whose calls block until they are done."""

    def __init__(self, portal: BlockingPortal, conversation: AppConversation) -> None:
        self._portal = portal
        self.conversation = conversation
        """The asynchronous conversation underneath."""

    @property
    def id(self) -> str | None:
        return self.conversation.id

    @property
    def last_reply(self) -> Reply | None:
        return self.conversation.last_reply

    def send(self, message: str, *, attachments: Sequence[Attachment] = ()) -> Reply:
        """`AppConversation.send`, blocking."""

        async def send() -> Reply:
            return await self.conversation.send(message, attachments=attachments)

        return self._portal.call(send)

    def stream(self, message: str, *, attachments: Sequence[Attachment] = ()) -> Iterator[Any]:
        """`AppConversation.stream`, as a blocking iterator of the same events.

        The turn runs in one task on the Synapse's loop (a run cannot move between tasks) and hands
        each event over through a queue; leaving the loop early cancels the task, and the turn is
        stored as interrupted."""
        handover: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop = anyio.CancelScope()

        async def pump() -> None:
            with stop:
                try:
                    async for event in self.conversation.stream(message, attachments=attachments):
                        handover.put(('event', event))
                except Exception as error:
                    handover.put(('error', error))
                    return
            handover.put(('done', None))

        running = self._portal.start_task_soon(pump)
        finished = False
        try:
            while True:
                kind, value = handover.get()
                if kind == 'event':
                    yield value
                    continue
                finished = True
                if kind == 'error':
                    raise value
                return
        finally:
            if not finished:
                # Cancel inside the task, then wait for it: the interrupted turn is queued by then.
                self._portal.call(stop.cancel)
            running.result()
