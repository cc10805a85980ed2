"""The distiller: what it reads, what it writes, where it resumes, and that it runs on the task queue.

The demo distiller (`memory_model='demo'`) and FunctionModels stand in for a provider; conversations
are real Synapse turns; the distillation task runs through the task runner like any task.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import select

from synapse_agents import Synapse
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.capabilities import Compression
from synapse_agents.memory import book
from synapse_agents.memory.distiller import distil
from synapse_agents.memory.jobs import KIND, queue_distillation, quiet_conversations
from synapse_agents.memory.tables import MemoryCursor
from synapse_agents.tasks import queue
from synapse_agents.tasks.runner import run_task
from synapse_agents.tasks.tables import AgentTask

pytestmark = pytest.mark.anyio

FIRM, MARIA = ('firm', '7'), ('user', 'maria')


def chat_agent() -> Agent[Any, str]:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        yield 'Noted.'

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('Noted.')])

    return Agent(FunctionModel(answer, stream_function=stream), name='assistant')


def ident(conversation: Any) -> str:
    """A conversation's id, once its first turn made it."""
    assert conversation.id is not None
    return str(conversation.id)


def cursor(syn: Synapse, conversation_id: str) -> MemoryCursor | None:
    with syn.runtime.store.read() as session:
        return session.get(MemoryCursor, conversation_id)


async def test_shared_and_personal_memories_are_written_and_the_cursor_moves(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_MEMORY_MODEL', 'demo')
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(chat_agent(), tenant=FIRM, actor=MARIA, subject=('case', '1'))
        await conv.send('Hello! I prefer short answers. We bill clients fortnightly. What is due today?')
        outcome = await distil(syn.runtime.store, syn.runtime.settings, ident(conv))
        assert (outcome.read, outcome.shared, outcome.personal, outcome.error) == (2, 1, 1, None)
        rows, _ = book.listing(syn.runtime.store, book.MemoryFilters())
        assert {(r.content, r.applies_to, r.subject, r.source, r.agent_key) for r in rows} == {
            ('We bill clients fortnightly.', None, 'case:1', 'distilled', 'assistant'),
            ('I prefer short answers.', 'user:maria', 'case:1', 'distilled', 'assistant'),
        }
        assert all(r.conversation_id == conv.id and len(r.source_message_ids) == 2 for r in rows)
        first = cursor(syn, ident(conv))
        assert first is not None and first.distilled_until is not None and first.memories_written == 2
        # Nothing new: nothing asked. New messages: only they are read.
        assert (await distil(syn.runtime.store, syn.runtime.settings, ident(conv))).skipped is not None
        await conv.send('Thanks, that is all.')
        again = await distil(syn.runtime.store, syn.runtime.settings, ident(conv))
        assert (again.read, again.shared, again.personal) == (2, 0, 0)
        later = cursor(syn, ident(conv))
        assert later is not None and later.distilled_until > first.distilled_until  # type: ignore[operator]
        with syn.runtime.store.read() as session:
            modules = set(session.scalars(select(LlmCall.module)))
        assert 'distill' in modules and 'embed' in modules


async def test_a_person_who_does_not_share_keeps_only_their_own_memories(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_MEMORY_MODEL', 'demo')
    async with Synapse(database_url=database_url, agents=[]) as syn:
        book.set_sharing(syn.runtime.store, 'user:maria', False)
        conv = await syn.conversation(chat_agent(), tenant=FIRM, actor=MARIA)
        await conv.send('I prefer short answers. We bill clients fortnightly.')
        outcome = await distil(syn.runtime.store, syn.runtime.settings, ident(conv))
        assert (outcome.shared, outcome.personal) == (0, 1)
        # Nobody at the other end: the personal half has no one to apply to.
        anonymous = await syn.conversation(chat_agent(), tenant=FIRM)
        await anonymous.send('I prefer long answers. Court sits on Mondays.')
        outcome = await distil(syn.runtime.store, syn.runtime.settings, ident(anonymous))
        assert (outcome.shared, outcome.personal) == (1, 0)


async def test_no_model_no_distilling_and_a_failure_still_moves_the_cursor(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(chat_agent(), tenant=FIRM, actor=MARIA)
        await conv.send('We bill clients fortnightly.')
        unnamed = await distil(syn.runtime.store, syn.runtime.settings, ident(conv))
        assert unnamed.skipped is not None and 'memory_model' in unnamed.skipped
        assert cursor(syn, ident(conv)) is None
        assert queue_distillation(syn.runtime, ident(conv), FIRM) is None
        failing = syn.runtime.settings.model_copy(update={'memory_model': 'openai:gpt-5-mini'})
        failed = await distil(syn.runtime.store, failing, ident(conv))  # no key, and no requests allowed
        assert failed.error is not None
        stamped = cursor(syn, ident(conv))
        assert stamped is not None and stamped.distilled_until is not None and stamped.last_error
        assert (await distil(syn.runtime.store, failing, ident(conv))).skipped is not None  # not retried


async def test_distilling_runs_on_the_task_queue_once_per_conversation(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_MEMORY_MODEL', 'demo')
    monkeypatch.setenv('SYNAPSE_MEMORY_SWEEP_MINUTES', '1')
    async with Synapse(database_url=database_url, agents=[]) as syn:
        store = syn.runtime.store
        conv = await syn.conversation(chat_agent(), tenant=FIRM, actor=MARIA)
        await conv.send('We bill clients fortnightly.')
        untenanted = await syn.conversation(chat_agent())
        await untenanted.send('Court sits on Mondays.')
        assert quiet_conversations(store, 0) == [(conv.id, FIRM)]  # no tenant: never swept
        assert quiet_conversations(store, 60) == []  # not quiet for an hour yet
        task_id = queue_distillation(syn.runtime, ident(conv), FIRM)
        assert task_id is not None
        assert queue_distillation(syn.runtime, ident(conv), FIRM) is None  # one already waits
        status = await run_task(syn.runtime, task_id, 'test-worker')
        assert status == 'succeeded'
        task, _ = queue.get_task(store, task_id)
        assert task.agent_key == f'job:{KIND}' and task.output is not None and task.output['shared'] == 1
        assert quiet_conversations(store, 0) == []  # read to its end
        with store.read() as session:
            assert session.scalar(select(AgentTask.tenant_id).where(AgentTask.id == task_id)) == '7'


async def test_a_compressed_conversation_is_queued_for_distilling(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('SYNAPSE_MEMORY_MODEL', 'demo')

    def summarise(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart('They talked about billing.')])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        yield 'Noted, and here are many words to fill the budget quickly. ' * 4

    compression = Compression(budget_tokens=120, keep_last=1, model=FunctionModel(summarise))
    agent = Agent(FunctionModel(stream_function=stream), name='long', capabilities=[compression])
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent, tenant=FIRM, actor=MARIA)
        for n in range(4):
            await conv.send(f'Message {n}: we bill clients fortnightly, and more words follow here.')
        with anyio.fail_after(10):
            while True:
                with syn.runtime.store.read() as session:
                    queued = session.scalars(
                        select(AgentTask).where(AgentTask.agent_key == f'job:{KIND}')
                    ).all()
                if queued:
                    break
                await anyio.sleep(0.05)
    assert [(t.context, t.status, t.tenant_id) for t in queued] == [
        ({'conversation_id': ident(conv)}, 'queued', '7')
    ]
