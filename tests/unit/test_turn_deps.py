"""A turn's deps on every selected database: each kind of factory, teardown after the run (also when
the model raises and when the stream is cancelled), and the `server` lifetime."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from types import TracebackType
from typing import Any

import anyio
import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from synapse_agents.chat.deps import given
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.conversations.tables import Message
from synapse_agents.errors import DepsRejected
from synapse_agents.events import TurnFailed, TurnFinished
from synapse_agents.settings import Settings
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget

pytestmark = pytest.mark.anyio

Log = list[Any]


def probe(log: Log, *, fail: bool = False, hang: bool = False) -> Agent[Any, str]:
    """An agent whose model calls `peek` (which logs the deps), then answers, raises or hangs."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        if not any(getattr(p, 'part_kind', '') == 'tool-call' for m in messages for p in m.parts):
            yield {0: DeltaToolCall(name='peek', json_args='{}', tool_call_id='call_peek')}
            return
        if fail:
            raise RuntimeError('the model is down')
        yield 'partial '
        if hang:
            await anyio.sleep(30)
        yield 'answer'

    agent: Agent[Any, str] = Agent(
        FunctionModel(stream_function=stream, model_name='probe'), deps_type=object
    )

    @agent.tool
    def peek(ctx: RunContext[Any]) -> str:
        log.append(('deps', ctx.deps))
        return 'seen'

    return agent


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes)
    writes.close()


def target(agent: Agent[Any, str], factory: Callable[[], Any], **kwargs: Any) -> TurnTarget:
    return TurnTarget.for_agent(agent, slug='probe', deps_factory=factory, deps_required=True, **kwargs)


async def run(engine: ChatEngine, turn_target: TurnTarget, log: Log, message: str = 'go') -> list[Any]:
    """One turn; `failed` and `finished` go in the log when those events arrive."""
    prepared = await engine.prepare(TurnRequest(turn_target, message))
    events = []
    async for event in engine.stream(prepared):
        if isinstance(event, TurnFailed):
            log.append('failed')
        if isinstance(event, TurnFinished):
            log.append('finished')
        events.append(event)
    await engine.writes.drain()
    return events


# -- the kinds of factory -------------------------------------------------------------------


def kinds(log: Log) -> dict[str, Callable[[], Any]]:
    """Every kind of factory, each building the deps 'D' and logging its set-up and teardown."""

    def plain() -> str:
        log.append('enter')
        return 'D'

    async def awaited() -> str:
        await asyncio.sleep(0)
        log.append('enter')
        return 'D'

    @contextmanager
    def managed() -> Iterator[str]:
        log.append('enter')
        try:
            yield 'D'
        finally:
            log.append('exit')

    @asynccontextmanager
    async def managed_async() -> AsyncIterator[str]:
        log.append('enter')
        try:
            yield 'D'
        finally:
            await asyncio.sleep(0)
            log.append('exit')

    class Resource:
        def __enter__(self) -> str:
            log.append('enter')
            return 'D'

        def __exit__(self, *exc: object) -> None:
            log.append('exit')

    class AsyncResource:
        async def __aenter__(self) -> str:
            log.append('enter')
            return 'D'

        async def __aexit__(
            self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
        ) -> None:
            log.append('exit')

    async def opens_later() -> AsyncResource:
        return AsyncResource()

    return {
        'function': plain,
        'async function': awaited,
        'contextmanager': managed,
        'asynccontextmanager': managed_async,
        'object with __enter__': Resource,
        'object with __aenter__': AsyncResource,
        'async function returning a context manager': opens_later,
    }


KINDS = list(kinds([]))
TORN_DOWN = set(KINDS) - {'function', 'async function'}


@pytest.mark.parametrize('kind', KINDS)
async def test_each_kind_of_factory_gives_the_deps_and_is_torn_down_before_the_turn_ends(
    engine: ChatEngine, kind: str
) -> None:
    log: Log = []
    factory = kinds(log)[kind]
    await run(engine, target(probe(log), factory), log)
    teardown = ['exit'] if kind in TORN_DOWN else []
    assert log == ['enter', ('deps', 'D'), *teardown, 'finished']


@pytest.mark.parametrize('kind', ['contextmanager', 'asynccontextmanager', 'object with __aenter__'])
async def test_teardown_runs_when_the_model_raises(engine: ChatEngine, store: Store, kind: str) -> None:
    log: Log = []
    events = await run(engine, target(probe(log, fail=True), kinds(log)[kind]), log)
    assert log == ['enter', ('deps', 'D'), 'exit', 'failed', 'finished']
    failed = next(e for e in events if isinstance(e, TurnFailed))
    assert failed.message == 'the model is down'
    with store.read() as session:
        roles = [m.role for m in session.query(Message).filter_by(conversation_id=events[-1].conversation_id)]
    assert 'error' in roles, 'the error card was stored before the teardown'


async def test_teardown_runs_when_the_consumer_closes_the_stream(engine: ChatEngine, store: Store) -> None:
    log: Log = []
    prepared = await engine.prepare(
        TurnRequest(target(probe(log, hang=True), kinds(log)['asynccontextmanager']), 'go')
    )
    events = engine.stream(prepared)
    async for event in events:
        if _is_text(event):
            break
    assert log == ['enter', ('deps', 'D')]
    await events.aclose()
    assert log == ['enter', ('deps', 'D'), 'exit']
    await engine.writes.drain()
    with store.read() as session:
        [answer] = session.query(Message).filter_by(
            conversation_id=prepared.conversation_id, role='assistant'
        )
    assert answer.status == 'interrupted'


async def test_teardown_runs_when_the_turn_is_cancelled(engine: ChatEngine) -> None:
    log: Log = []
    prepared = await engine.prepare(
        TurnRequest(target(probe(log, hang=True), kinds(log)['asynccontextmanager']), 'go')
    )
    streaming = anyio.Event()

    async def consume() -> None:
        async for event in engine.stream(prepared):
            if _is_text(event):
                streaming.set()

    async with anyio.create_task_group() as group:
        group.start_soon(consume)
        with anyio.fail_after(5):
            await streaming.wait()
        group.cancel_scope.cancel()
    # The teardown awaits before it logs: it ran although its task was cancelled.
    assert log == ['enter', ('deps', 'D'), 'exit']


async def test_a_teardown_that_raises_is_logged_and_the_turn_still_completes(
    engine: ChatEngine, caplog: pytest.LogCaptureFixture
) -> None:
    log: Log = []

    @contextmanager
    def breaks() -> Iterator[str]:
        yield 'D'
        raise OSError('connection already closed')

    events = await run(engine, target(probe(log), breaks), log)
    assert log == [('deps', 'D'), 'finished']
    assert isinstance(events[-1], TurnFinished) and events[-1].status == 'complete'
    assert 'A deps teardown failed' in caplog.text


async def test_deps_given_to_the_python_api_are_used_as_they_are(engine: ChatEngine) -> None:
    log: Log = []

    class Session:
        def __enter__(self) -> str:
            raise AssertionError('a given object is never entered')

        def __exit__(self, *exc: object) -> None:
            raise AssertionError('nor left')

    session = Session()
    await run(engine, target(probe(log), given(session)), log)
    assert log == [('deps', session), 'finished']


# -- the server lifetime --------------------------------------------------------------------


@pytest.fixture
def server_engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes, Settings(deps_lifetime='server'))
    writes.close()


async def test_server_deps_are_built_once_across_turns_and_torn_down_at_close(
    server_engine: ChatEngine,
) -> None:
    log: Log = []
    probe_target = target(probe(log), kinds(log)['asynccontextmanager'])
    await run(server_engine, probe_target, log)
    await run(server_engine, probe_target, log)
    assert log == ['enter', ('deps', 'D'), 'finished', ('deps', 'D'), 'finished']
    assert server_engine.server_deps.builds == 1
    await server_engine.close_deps()
    assert log[-1] == 'exit'
    await run(server_engine, probe_target, log)
    assert server_engine.server_deps.builds == 2, 'built again after the close'
    await server_engine.close_deps()


async def test_two_concurrent_first_turns_build_server_deps_once(server_engine: ChatEngine) -> None:
    log: Log = []

    @asynccontextmanager
    async def slow() -> AsyncIterator[dict[str, int]]:
        log.append('enter')
        await asyncio.sleep(0.05)  # both turns are waiting for it meanwhile
        yield {'connection': 1}
        log.append('exit')

    probe_target = target(probe(log), slow)
    async with anyio.create_task_group() as group:
        group.start_soon(run, server_engine, probe_target, log)
        group.start_soon(run, server_engine, probe_target, log)
    assert log.count('enter') == 1 and server_engine.server_deps.builds == 1
    assert log.count(('deps', {'connection': 1})) == 2
    await server_engine.close_deps()
    assert log.count('exit') == 1


async def test_an_agent_can_ask_for_the_server_lifetime_itself(engine: ChatEngine) -> None:
    log: Log = []
    probe_target = target(probe(log), kinds(log)['contextmanager'], deps_lifetime='server')
    await run(engine, probe_target, log)
    await run(engine, probe_target, log)
    assert log.count('enter') == 1 and 'exit' not in log
    await engine.close_deps()
    assert log[-1] == 'exit'


async def test_a_factory_that_fails_builds_nothing_and_is_tried_again(server_engine: ChatEngine) -> None:
    log: Log = []
    calls = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError('database not up yet')
        return 'D'

    probe_target = target(probe(log), flaky)
    await run(server_engine, probe_target, log)
    assert log == ['failed', 'finished']
    await run(server_engine, probe_target, log)
    assert log[-2:] == [('deps', 'D'), 'finished'] and server_engine.server_deps.builds == 1
    await server_engine.close_deps()


def _is_text(event: Any) -> bool:
    return (isinstance(event, PartStartEvent) and isinstance(event.part, TextPart)) or (
        isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta)
    )


async def test_an_agent_with_a_deps_schema_given_deps_by_the_python_api_needs_no_values(
    engine: ChatEngine,
) -> None:
    log: Log = []
    schema = {'type': 'object', 'required': ['account_id'], 'properties': {'account_id': {'type': 'integer'}}}
    await run(engine, target(probe(log), given({'account_id': 1}), deps_schema=schema), log)
    assert log == [('deps', {'account_id': 1}), 'finished']
    without = TurnTarget.for_agent(probe(log), slug='probe', deps_schema=schema)
    with pytest.raises(DepsRejected) as refused:  # the HTTP API's 422
        await engine.prepare(TurnRequest(without, 'go'))
    assert refused.value.code == 'deps_required'
    prepared = await engine.prepare(TurnRequest(without, 'go', deps_values={'account_id': 2}))
    assert prepared.deps_values == {'account_id': 2}
