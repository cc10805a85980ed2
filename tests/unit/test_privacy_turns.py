"""`Privacy` in Synapse's turns, on every selected database: what leaves, what the tools get, what is stored.

A FunctionModel records every request it is sent and answers with the placeholders it was given, as
a model would; a tool records the arguments it received. Together they prove that no detected value
leaves, that the same value keeps its placeholder across turns, that tools run with the real values,
that the reply is restored in the stream and in the stored conversation, that a detector that cannot
be built fails the turn before any request, and that one conversation can opt out.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from sqlalchemy import select

from synapse_agents import Synapse, _agent_runs
from synapse_agents.capabilities import Compression, Privacy
from synapse_agents.compression.tables import HistorySummary
from synapse_agents.conversations.tables import Message
from synapse_agents.demo.distiller import demo_distiller
from synapse_agents.errors import DetectorUnavailable
from synapse_agents.memory import book, distiller
from synapse_agents.privacy import capability as privacy_capability
from synapse_agents.privacy import detector as privacy_detector
from synapse_agents.privacy import turns as privacy_turns
from synapse_agents.privacy import vault_store
from synapse_agents.privacy.tables import PrivacyVault
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.traces import hooks as trace_hooks
from synapse_agents.traces import read

pytestmark = pytest.mark.anyio

EMAIL = 'ana.garcia@example.com'
PHONE = '+34 612 345 678'
IBAN = 'ES91 2100 0418 4502 0005 1332'
SSN = '536-22-1234'
VALUES = (EMAIL, PHONE, IBAN, SSN)
ANSWER = f'Call {EMAIL} or {PHONE} or {SSN}, thanks.'
"""The model's answer to the tool's return, restored (it wrote `Call «EMAIL_1» or «PHONE_1» or ...`)."""
PLACEHOLDER = re.compile(r'«[A-Z_]+_\d+»')


class Recorder:
    """The model: records each request as JSON, calls `find_customer` with the first placeholder
    of a new question, and answers a tool's return by repeating its placeholders."""

    def __init__(self) -> None:
        self.requests: list[list[ModelMessage]] = []
        self.tool_args: list[str] = []

    def sent(self) -> str:
        return ModelMessagesTypeAdapter.dump_json([m for r in self.requests for m in r]).decode()

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        self.requests.append(list(messages))
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returned = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        if returned:
            found = PLACEHOLDER.findall(str(returned[0].content))
            text = 'Call ' + ' or '.join(found) + ', thanks.'
            for start in range(0, len(text), 5):  # five characters a chunk: placeholders get cut
                yield text[start : start + 5]
            return
        prompt = next(p for p in last.parts if isinstance(p, UserPromptPart))
        placeholders = PLACEHOLDER.findall(str(prompt.content))
        args = json.dumps({'email': placeholders[0] if placeholders else 'none'})
        yield {
            0: DeltaToolCall(name='find_customer', json_args=args[:14], tool_call_id=f'c{len(self.requests)}')
        }
        yield {0: DeltaToolCall(json_args=args[14:])}

    def agent(self, *capabilities: Any) -> Agent[Any, str]:
        agent: Agent[Any, str] = Agent(
            FunctionModel(stream_function=self.stream, model_name='recorder'),
            name='desk',
            capabilities=list(capabilities),
        )

        @agent.tool_plain
        def find_customer(email: str) -> str:
            self.tool_args.append(email)
            return f'The customer {email} has phone {PHONE} and SSN {SSN}.'

        return agent


def rows(database_url: str, table: Any, conversation_id: str) -> list[Any]:
    store = Store.open(database_url, Path('/nonexistent'))
    try:
        with store.read() as session:
            query = select(table).where(table.conversation_id == conversation_id)
            return list(session.scalars(query.order_by(*table.__table__.primary_key.columns)))
    finally:
        store.close()


@pytest.fixture
def private(synapse_of: Callable[..., Synapse]) -> Callable[..., Synapse]:
    def make(**settings: Any) -> Synapse:
        return synapse_of(privacy_enabled=True, **settings)

    return make


async def test_no_detected_value_leaves_and_placeholders_hold_across_turns(
    private: Callable[..., Synapse], database_url: str
) -> None:
    model = Recorder()
    async with private() as syn:
        conv = await syn.conversation(model.agent(), tenant=('firm', '7'))
        first = await conv.send(f'Find the customer {EMAIL}, please.')
        second = await conv.send(f'Also {EMAIL} again: IBAN {IBAN}.')
    sent = model.sent()
    for value in VALUES:
        assert value not in sent, value
    # The tool ran with the real value both times; the model only ever saw the placeholder.
    assert model.tool_args == [EMAIL, EMAIL]
    first_prompt = model.requests[0][-1].parts[-1]
    assert isinstance(first_prompt, UserPromptPart) and '«EMAIL_1»' in str(first_prompt.content)
    last_prompt = model.requests[-2][-1].parts[-1]  # the second turn's question
    assert isinstance(last_prompt, UserPromptPart)
    assert str(last_prompt.content) == 'Also «EMAIL_1» again: IBAN «IBAN_1».'
    # Turn 2 re-sent turn 1 with the same placeholders (the vault is the conversation's).
    assert '«PHONE_1»' in ModelMessagesTypeAdapter.dump_json(model.requests[-1]).decode()
    # The replies are restored, and stored in clear: nothing anonymised is stored.
    assert first.output == ANSWER
    assert second.output == first.output
    stored = rows(database_url, Message, first.conversation_id)
    everything = json.dumps([[m.content, m.model_messages, m.parts] for m in stored], default=str)
    assert EMAIL in everything and PHONE in everything
    kept = [[m.content, m.model_messages, m.parts] for m in stored if m.role != 'notice']
    assert not PLACEHOLDER.search(json.dumps(kept, ensure_ascii=False, default=str))
    # Each request that carried placeholders said which (never the value).
    notices = [m for m in stored if m.role == 'notice']
    assert notices and all(EMAIL not in json.dumps(n.meta) for n in notices)
    assert {'placeholder': '«EMAIL_1»', 'entity': 'EMAIL_ADDRESS'} in notices[0].meta['placeholders']


async def test_the_vault_is_encrypted_at_rest(private: Callable[..., Synapse], database_url: str) -> None:
    model = Recorder()
    async with private() as syn:
        conv = await syn.conversation(model.agent(), tenant=('firm', '7'))
        reply = await conv.send(f'Find the customer {EMAIL}, please.')
        settings = syn.runtime.settings
    (vault,) = rows(database_url, PrivacyVault, reply.conversation_id)
    assert vault.tenant == 'firm:7' and vault.entries == 3
    assert vault.sealed and EMAIL not in vault.sealed and 'EMAIL' not in vault.sealed
    store = Store.open(database_url, Path('/nonexistent'))
    try:
        box = vault_store.box_for(settings)
        opened = vault_store.load(store, box, reply.conversation_id, 'firm:7').vault
        assert opened.value('«EMAIL_1»') == EMAIL
        # Another tenant's read finds nothing.
        assert len(vault_store.load(store, box, reply.conversation_id, 'firm:8').vault) == 0
    finally:
        store.close()


async def test_the_stream_is_restored_across_chunk_boundaries(private: Callable[..., Synapse]) -> None:
    model = Recorder()
    texts: list[str] = []
    async with private() as syn:
        conv = await syn.conversation(model.agent())
        async with aclosing(conv.stream(f'Find the customer {EMAIL}, please.')) as events:
            async for event in events:
                if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                    texts.append(event.part.content)
                elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                    texts.append(event.delta.content_delta)
    assert not any('«' in text or '»' in text for text in texts), texts
    assert ''.join(texts) == ANSWER


async def test_a_detector_that_cannot_be_built_fails_the_turn_before_any_request(
    private: Callable[..., Synapse], database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(privacy_detector, 'MODEL_PACKAGE', 'no_such_spacy_pipeline')
    privacy_detector.reset_detector()
    privacy_capability._remembered.cache_clear()
    model = Recorder()
    try:
        async with private() as syn:
            conv = await syn.conversation(model.agent())
            with pytest.raises(DetectorUnavailable, match='no_such_spacy_pipeline'):
                await conv.send(f'Find the customer {EMAIL}, please.')
            conversation_id = conv.id
    finally:
        privacy_detector.reset_detector()
    assert model.requests == []  # nothing left
    assert conversation_id is not None
    errors = [m for m in rows(database_url, Message, conversation_id) if m.role == 'error']
    assert len(errors) == 1 and 'PII detector' in errors[0].content


async def test_one_conversation_can_opt_out(private: Callable[..., Synapse], database_url: str) -> None:
    model = Recorder()
    async with private() as syn:
        conv = await syn.conversation(model.agent())
        await conv.send(f'Find the customer {EMAIL}, please.')
        assert conv.id is not None
        assert vault_store.anonymize_pii(syn.runtime.store, conv.id) is True
        vault_store.set_anonymize_pii(syn.runtime.store, conv.id, False)
        await conv.send(f'Now {IBAN}.')
        other = await syn.conversation(model.agent())
        await other.send(f'Hello from {IBAN}.')
    opted_out = ModelMessagesTypeAdapter.dump_json(model.requests[2]).decode()
    assert IBAN in opted_out and EMAIL in opted_out  # sent as it is, history included
    assert IBAN not in ModelMessagesTypeAdapter.dump_json(model.requests[-2]).decode()  # others still redact


async def test_privacy_is_off_by_default(synapse_of: Callable[..., Synapse]) -> None:
    model = Recorder()
    async with synapse_of() as syn:
        conv = await syn.conversation(model.agent())
        await conv.send(f'Find the customer {EMAIL}, please.')
    assert EMAIL in model.sent()


async def test_an_agent_with_its_own_privacy_is_redacted_once(
    synapse_of: Callable[..., Synapse], private: Callable[..., Synapse]
) -> None:
    for make in (synapse_of, private):  # the agent's own Privacy(), with and without the setting
        model = Recorder()
        async with make() as syn:
            conv = await syn.conversation(model.agent(Privacy(keep=[])))
            reply = await conv.send(f'Find the customer {EMAIL}, please.')
        assert EMAIL not in model.sent() and '««' not in model.sent()
        assert model.tool_args == [EMAIL]
        assert reply.output == ANSWER


@pytest.fixture(autouse=True)
def fresh_findings() -> None:
    privacy_capability._remembered.cache_clear()


async def test_instructions_and_nested_runs_are_redacted_too(private: Callable[..., Synapse]) -> None:
    """The agent's instructions are sent redacted, and an agent a tool runs inside the turn (a
    nested run) gets `Privacy` from the setting as well."""
    inner_sent: list[str] = []

    def inner_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        inner_sent.append(ModelMessagesTypeAdapter.dump_json(messages).decode())
        prompt = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
        return ModelResponse(parts=[TextPart(f'checked {PLACEHOLDER.findall(prompt)[0]}')])

    helper: Agent[Any, str] = Agent(FunctionModel(inner_model), name='helper')
    outer_sent: list[str] = []

    async def outer_model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        outer_sent.append(ModelMessagesTypeAdapter.dump_json(messages).decode() + str(info.instructions))
        if len(outer_sent) == 1:
            yield {0: DeltaToolCall(name='check', json_args='{"email": "«EMAIL_1»"}', tool_call_id='x')}
            return
        yield 'done'

    agent: Agent[Any, str] = Agent(
        FunctionModel(stream_function=outer_model), name='desk', instructions=f'The account owner is {IBAN}.'
    )
    results: list[str] = []

    @agent.tool_plain
    async def check(email: str) -> str:
        result = await helper.run(f'Check {email} please.')
        results.append(result.output)
        return result.output

    async with private() as syn:
        conv = await syn.conversation(agent)
        await conv.send(f'Check {EMAIL}.')
    assert outer_sent and all(IBAN not in sent and EMAIL not in sent for sent in outer_sent)
    assert '«IBAN_1»' in outer_sent[0]
    assert inner_sent and EMAIL not in inner_sent[0] and '«EMAIL_1»' in inner_sent[0]
    assert results == [f'checked {EMAIL}']  # restored for the tool that ran it


@pytest.mark.parametrize('traces_first', [False, True], ids=['as loaded', 'the trace recorder added first'])
async def test_the_trace_shows_the_redacted_request_that_was_sent(
    synapse_of: Callable[..., Synapse], database_url: str, monkeypatch: pytest.MonkeyPatch, traces_first: bool
) -> None:
    if traces_first:  # whatever order the extenders were installed in, Privacy is outside RunTrace
        trace_hooks.install()
        privacy_turns.install()
        reordered = sorted(_agent_runs._extenders, key=lambda each: each is not trace_hooks._trace)
        monkeypatch.setattr(_agent_runs, '_extenders', reordered)
    model = Recorder()
    async with synapse_of(privacy_enabled=True, debug=True) as syn:
        conv = await syn.conversation(model.agent())
        reply = await conv.send(f'Find the customer {EMAIL}, please.')
    store = Store.open(database_url, Path('/nonexistent'))
    try:
        tree = read.tree(store, reply.run_id)
        assert tree is not None
        calls = [child for child in tree['children'] if child['kind'] == 'model']
        details = [read.call_detail(store, call['id']) for call in calls]
    finally:
        store.close()
    assert len(details) == 2
    shown = json.dumps([detail['data'] for detail in details if detail is not None], ensure_ascii=False)
    assert '«EMAIL_1»' in shown and '«PHONE_1»' in shown
    assert EMAIL not in shown and PHONE not in shown
    # The response as the model wrote it, placeholders and all.
    assert 'Call «EMAIL_1» or «PHONE_1» or «US_SSN_1», thanks.' in shown


def test_keep_is_a_list_of_entity_names() -> None:
    with pytest.raises(ValueError, match='keep is a list'):
        Privacy(keep='PERSON')  # a str is a Sequence[str]: caught at run time
    assert Privacy(keep=['PERSON']).keep == ['PERSON']


async def test_distilling_memories_sends_the_conversation_redacted(
    private: Callable[..., Synapse], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The memory distiller runs outside the turns, on the task queue: with `privacy_enabled` its
    transcript leaves redacted too, and the memories it writes are restored."""
    heard: list[str] = []

    def recording() -> FunctionModel:
        demo = demo_distiller()

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            heard.append(ModelMessagesTypeAdapter.dump_json(messages).decode())
            assert demo.function is not None
            return demo.function(messages, info)  # type: ignore[return-value]

        return FunctionModel(respond, model_name='recording-distiller')

    monkeypatch.setattr(distiller, 'demo_distiller', recording)
    async with private(memory_model='demo') as syn:
        conv = await syn.conversation(Recorder().agent(), tenant=('firm', '7'))
        await conv.send(f'We bill clients fortnightly from {EMAIL}.')
        assert conv.id is not None
        outcome = await distiller.distil(syn.runtime.store, syn.runtime.settings, conv.id)
        rows, _ = book.listing(syn.runtime.store, book.MemoryFilters())
    assert outcome.error is None and heard
    assert EMAIL not in ''.join(heard) and '«EMAIL_1»' in ''.join(heard)
    assert [r.content for r in rows] == [f'We bill clients fortnightly from {EMAIL}.']


@pytest.mark.parametrize('setting', [True, False], ids=['privacy_enabled', 'Privacy() listed first'])
async def test_a_compression_summary_is_asked_redacted_and_stored_in_clear(
    synapse_of: Callable[..., Synapse], database_url: str, setting: bool
) -> None:
    """With the setting, or with the agent's own `Privacy()` listed before `Compression` (it orders
    itself inside Synapse's capabilities that add text), the summary is redacted with the rest."""
    asked: list[str] = []

    def summarise(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = str(messages[-1].parts[-1].content)  # type: ignore[union-attr]
        asked.append(prompt)
        return ModelResponse(
            parts=[TextPart('They asked about ' + ' and '.join(PLACEHOLDER.findall(prompt)))]
        )

    model = Recorder()
    compression = Compression(budget_tokens=120, keep_last=1, model=FunctionModel(summarise))
    capabilities = [compression] if setting else [Privacy(keep=['PERSON']), compression]
    async with synapse_of(privacy_enabled=setting) as syn:
        conv = await syn.conversation(model.agent(*capabilities), tenant=('firm', '7'))
        for index in range(3):
            await conv.send(f'Question {index}: find the customer {EMAIL}, or {IBAN}.')
        assert conv.id is not None
    assert asked, 'the conversation should have been compressed'
    assert not any(EMAIL in prompt or IBAN in prompt for prompt in asked)
    for value in VALUES:
        assert value not in model.sent()
    (summary,) = rows(database_url, HistorySummary, conv.id)
    assert summary.summary is not None and EMAIL in summary.summary and '«' not in summary.summary


@pytest.mark.parametrize(
    ('value', 'kept'), [('', []), ('[]', []), ('PERSON,LOCATION', ['PERSON', 'LOCATION'])]
)
def test_privacy_except_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, kept: list[str]
) -> None:
    monkeypatch.setenv('SYNAPSE_PRIVACY_EXCEPT', value)
    assert load_settings().settings.privacy_except == kept
    monkeypatch.delenv('SYNAPSE_PRIVACY_EXCEPT')
    assert load_settings().settings.privacy_except == ['PERSON']
