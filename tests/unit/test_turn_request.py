"""What a `TurnRequest` says takes effect: origin and scope on the conversation, the ledger module and
parent run id on each model request, usage limits, extra capabilities that see the scope."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.usage import UsageLimits
from sqlalchemy import select

from chat_helpers import collect, failure, finished, turn_target
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.conversations.tables import Conversation, Message
from synapse_agents.errors import InvalidScope, ScopeMismatch
from synapse_agents.scope import Scope
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.write_queue import WriteQueue

pytestmark = pytest.mark.anyio

ACME = Scope(tenant=('org', 'acme'), actor=('user', '42'), subject=('ticket', 'T-7'))


@pytest.fixture
def engine(store: Store) -> Iterator[ChatEngine]:
    writes = WriteQueue(store)
    yield ChatEngine(store, writes)
    writes.close()


async def run(engine: ChatEngine, request: TurnRequest) -> tuple[Any, list[Any]]:
    prepared = await engine.prepare(request)
    events = await collect(engine.stream(prepared))
    await engine.writes.drain()
    return prepared, events


def conversation_row(store: Store, conversation_id: str) -> Conversation:
    with store.read() as session:
        row = session.get(Conversation, conversation_id)
        assert row is not None
        return row


def ledger(store: Store, conversation_id: str) -> list[LlmCall]:
    with store.read() as session:
        query = select(LlmCall).where(LlmCall.conversation_id == conversation_id).order_by(LlmCall.id)
        return list(session.scalars(query))


@dataclass(eq=False)
class ScopeWitness(AbstractCapability[Any]):
    """Notes the scope each model request of the run sees through its run context."""

    seen: list[Scope] = field(default_factory=list)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.seen.append(Scope.of(ctx))
        return request_context


async def test_origin_and_scope_are_stored_on_a_new_conversation(engine: ChatEngine, store: Store) -> None:
    request = TurnRequest(turn_target('chat_agents.greeter'), 'hi', origin='app', scope=ACME)
    prepared, events = await run(engine, request)
    assert finished(events).saved is True
    row = conversation_row(store, prepared.conversation_id)
    assert row.origin == 'app'
    assert (row.tenant_type, row.tenant_id) == ('org', 'acme')
    assert (row.actor_type, row.actor_id) == ('user', '42')
    assert (row.subject_type, row.subject_id) == ('ticket', 'T-7')
    assert Scope.from_columns(row) == ACME


async def test_module_and_parent_run_id_are_on_every_ledger_row(engine: ChatEngine, store: Store) -> None:
    parent = new_id()
    request = TurnRequest(turn_target('chat_agents.shop'), 'go', module='workflow', parent_run_id=parent)
    prepared, _ = await run(engine, request)
    calls = ledger(store, prepared.conversation_id)
    assert len(calls) == 2
    assert all((c.module, c.parent_run_id, c.run_id) == ('workflow', parent, prepared.run_id) for c in calls)


async def test_a_usage_limit_ends_the_turn_with_an_error_card(engine: ChatEngine, store: Store) -> None:
    # `chat_agents.shop` calls a tool, so it needs a second model request: the limit allows one.
    request = TurnRequest(turn_target('chat_agents.shop'), 'go', usage_limits=UsageLimits(request_limit=1))
    prepared, events = await run(engine, request)
    card = failure(events)
    assert card is not None and card.exception_class == 'UsageLimitExceeded'
    assert card.recoverable is False and 'request_limit' in card.message
    assert finished(events).saved is True
    with store.read() as session:
        query = select(Message).where(Message.conversation_id == prepared.conversation_id)
        errors = [m for m in session.scalars(query) if m.role == 'error']
    assert [e.details['class'] for e in errors] == ['UsageLimitExceeded']
    assert len(ledger(store, prepared.conversation_id)) == 1


async def test_an_extra_capability_runs_and_sees_the_scope(engine: ChatEngine, store: Store) -> None:
    witness = ScopeWitness()
    request = TurnRequest(turn_target('chat_agents.shop'), 'go', scope=ACME, capabilities=[witness])
    prepared, events = await run(engine, request)
    assert failure(events) is None
    assert witness.seen == [ACME, ACME]  # both model requests of the run
    assert len(ledger(store, prepared.conversation_id)) == 2  # the recorder still runs beside it

    # Continuing without a scope: the run sees the one stored on the conversation.
    later = ScopeWitness()
    continued = TurnRequest(
        turn_target('chat_agents.shop'),
        'again',
        conversation_id=prepared.conversation_id,
        capabilities=[later],
    )
    await run(engine, continued)
    assert later.seen and all(scope == ACME for scope in later.seen)

    # A playground turn has the empty scope.
    plain = ScopeWitness()
    await run(engine, TurnRequest(turn_target('chat_agents.greeter'), 'hi', capabilities=[plain]))
    assert plain.seen == [Scope()]


async def test_a_conversation_cannot_change_scope(engine: ChatEngine) -> None:
    prepared, _ = await run(engine, TurnRequest(turn_target('chat_agents.greeter'), 'hi', scope=ACME))
    other = Scope(tenant=('org', 'globex'))
    with pytest.raises(ScopeMismatch) as rejected:  # the HTTP API's 409
        await engine.prepare(
            TurnRequest(
                turn_target('chat_agents.greeter'),
                'hi',
                conversation_id=prepared.conversation_id,
                scope=other,
            )
        )
    assert 'scope' in str(rejected.value)


async def test_a_continued_turn_keeps_tenant_and_subject_and_names_who_talks_now(
    engine: ChatEngine, store: Store
) -> None:
    prepared, _ = await run(engine, TurnRequest(turn_target('chat_agents.greeter'), 'hi', scope=ACME))
    with pytest.raises(ScopeMismatch) as rejected:  # the HTTP API's 409
        await engine.prepare(
            TurnRequest(
                turn_target('chat_agents.greeter'),
                'hi',
                conversation_id=prepared.conversation_id,
                scope=Scope(subject=('ticket', 'T-8')),
            )
        )
    assert 'subject' in str(rejected.value)
    witness = ScopeWitness()
    colleague = Scope(tenant=ACME.tenant, actor=('user', '43'))
    await run(
        engine,
        TurnRequest(
            turn_target('chat_agents.greeter'),
            'and now me',
            conversation_id=prepared.conversation_id,
            scope=colleague,
            capabilities=[witness],
        ),
    )
    assert witness.seen == [Scope(tenant=ACME.tenant, actor=('user', '43'), subject=ACME.subject)]
    # The conversation keeps the actor that opened it; the ledger names who talked each turn.
    assert Scope.from_columns(conversation_row(store, prepared.conversation_id)) == ACME
    assert [call.user for call in ledger(store, prepared.conversation_id)] == ['user:42', 'user:43']


@pytest.mark.parametrize(
    'part',
    [('', 'x'), ('org', ''), ('org', 'x' * 256), ('org', 'a\x00b'), ('org',), ('org', 7), 'org:acme'],
    ids=['empty-type', 'empty-id', 'too-long', 'nul', 'not-a-pair', 'not-a-string', 'a-string'],
)
def test_a_scope_part_must_be_a_pair_of_short_strings(part: Any) -> None:
    with pytest.raises(InvalidScope, match='tenant'):
        Scope(tenant=part)


def test_a_scope_part_of_255_characters_is_accepted() -> None:
    longest = 'x' * 255
    assert Scope(actor=('user', longest)).columns()['actor_id'] == longest


@pytest.mark.parametrize(
    ('field_name', 'value', 'message'),
    [
        ('origin', 'cron', 'origin'),
        ('module', '', 'module'),
        ('module', 'm' * 33, 'module'),
        ('parent_run_id', 'not-a-run', 'parent_run_id'),
        ('scope', {'tenant': ('org', 'acme')}, 'scope'),
    ],
)
def test_a_request_that_cannot_be_stored_is_refused(field_name: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TurnRequest(turn_target('chat_agents.greeter'), 'hi', **{field_name: value})
