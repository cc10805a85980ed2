"""The distiller: what was said since last time, turned into shared and personal memories.

`distil(store, settings, conversation_id)` reads the user's and the assistant's messages after the
conversation's `distilled_until`, asks the `memory_model` (structured output: two lists) for what
is worth keeping, and writes it (`Recall.remember`): the shared half for everyone in the
conversation's tenant and subject, the personal half for its actor. It then moves
`distilled_until` to the last message read and stamps `last_distilled_at`, also when nothing was
kept and after a failure: retrying a window that just failed usually fails again, and every
attempt is paid for.

It runs on the task queue (a `job:memory.distill` task), never on a chat's path. Its model calls
hold to the spending limits of the conversation's tenant and person and are ledger rows under
module `distill`. With no `memory_model` it does nothing (and moves nothing: the conversation is
distilled once a model is named). A conversation without a tenant cannot have memories: its
cursor moves and nothing is written. A person who chose not to share keeps their personal
memories; the shared half of what they said is dropped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from pydantic import BaseModel, Field
from pydantic_ai import Agent
from pydantic_ai.models import Model
from sqlalchemy import select

from ..accounting.capability import Spending
from ..conversations.tables import Conversation, Message
from ..demo.distiller import demo_distiller
from ..errors import MemoryInvalid
from ..registry.providers import resolve_model
from ..scope import METADATA_KEY, Scope
from ..settings import Settings
from ..store import Store
from ..store.in_turn import InTurn, running_on
from ..store.schema import utcnow
from . import book
from .recall import Recall
from .tables import MemoryCursor

logger = logging.getLogger('synapse.memory')

AGENT_NAME = 'memory.distill'
MODULE = 'distill'
MAX_TRANSCRIPT_CHARS = 60_000
"""The most of a window sent at once (its newest part); what is older was distilled or is dropped."""
DISTILL_PROMPT = """You keep an organisation's memory. You read part of a conversation between a person \
and an assistant and write down what is worth knowing in later conversations, as two independent lists.

shared: objective facts useful to anyone in this organisation, written impersonally ("Invoices are \
sent fortnightly.", "The Madrid office closes at 18:00."). NOTHING in shared may mention the person \
you read, what they asked, their doubts, their mistakes, their gaps or their preferences. If a fact \
might be about the person rather than about the organisation, it goes in personal or nowhere.

personal: what matters to this one person, in their own voice ("I prefer answers as bullet points.", \
"I work on the Ortega case.").

Keep only what stays true after this conversation: no greetings, no one-off questions, nothing the \
assistant merely guessed. One short sentence per memory. Empty lists are a good answer."""


class Distilled(BaseModel):
    """What the distiller model answers."""

    shared: list[str] = Field(default_factory=list, description='Objective, impersonal facts for everyone.')
    personal: list[str] = Field(
        default_factory=list, description='What matters to this person, in their voice.'
    )


@dataclass(frozen=True)
class Outcome:
    """What one distillation did."""

    read: int = 0
    shared: int = 0
    personal: int = 0
    skipped: str | None = None
    """Why nothing was asked (no model named, nothing new, no such conversation)."""
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class _Window:
    conversation: Conversation
    messages: list[Message]


async def distil(store: Store, settings: Settings, conversation_id: str) -> Outcome:
    """Distil what the conversation said since last time (see the module docstring)."""
    if not settings.memory_model:
        return Outcome(skipped='no memory_model is named: nothing is distilled until one is')
    window = await anyio.to_thread.run_sync(_window, store, conversation_id)
    if window is None:
        return Outcome(skipped='no such conversation')
    if not window.messages:
        return Outcome(skipped='nothing new since the last distillation')
    conversation, messages = window.conversation, window.messages
    scope = Scope.from_columns(conversation)
    tenant, actor = scope.label('tenant'), scope.label('actor')
    if tenant is None:
        await anyio.to_thread.run_sync(_advance, store, conversation_id, messages[-1].id, 0, None)
        return Outcome(read=len(messages), skipped='the conversation has no tenant: memories need one')
    try:
        answer = await _ask(store, settings, conversation, messages, tenant, actor)
        shares = await anyio.to_thread.run_sync(book.sharing, store, actor) if actor else None
        shared = answer.shared if (settings.share_memories if shares is None else shares) else []
        personal = answer.personal if actor is not None else []
        inputs = [
            *(_memory(text, conversation, scope, messages, None) for text in shared),
            *(_memory(text, conversation, scope, messages, actor) for text in personal),
        ]
        written = await Recall.of(store, settings).remember(_valid(inputs), user=actor)
    except Exception as exc:
        reason = f'{type(exc).__name__}: {exc}'[:1000]
        logger.warning('distilling conversation %s failed: %s', conversation_id, reason)
        await anyio.to_thread.run_sync(_advance, store, conversation_id, messages[-1].id, 0, reason)
        return Outcome(read=len(messages), error=reason)
    await anyio.to_thread.run_sync(_advance, store, conversation_id, messages[-1].id, len(written), None)
    return Outcome(
        read=len(messages),
        shared=sum(1 for m in written if m.applies_to is None),
        personal=sum(1 for m in written if m.applies_to is not None),
    )


async def _ask(
    store: Store,
    settings: Settings,
    conversation: Conversation,
    messages: list[Message],
    tenant: str,
    actor: str | None,
) -> Distilled:
    model = await anyio.to_thread.run_sync(_model, store, settings)
    spending = Spending(
        store,
        settings=settings,
        tenant=tenant,
        user=actor,
        agent=AGENT_NAME,
        conversation_id=conversation.id,
        module=MODULE,
    )
    agent = Agent(
        model,
        instructions=settings.memory_prompt or DISTILL_PROMPT,
        output_type=Distilled,
        name=AGENT_NAME,
        capabilities=[spending],
    )
    # Run as work of the conversation (its id, its scope, the store and settings a capability of a turn
    # finds), so that what applies to the conversation's turns applies here too: with
    # `privacy_enabled`, the transcript leaves redacted, with the conversation's own placeholders.
    scope = Scope.from_columns(conversation)
    with running_on(InTurn(store, settings)):
        result = await agent.run(
            f'The conversation so far (newest last):\n\n{transcript(messages)}',
            conversation_id=conversation.id,
            metadata={METADATA_KEY: scope.as_json()},
        )
    return result.output


def _model(store: Store, settings: Settings) -> Model:
    name = settings.memory_model or ''
    if name in ('demo', 'demo-fast'):
        return demo_distiller()
    return resolve_model(store, settings.secret_key, name)


def transcript(messages: list[Message]) -> str:
    """The window as `User:` / `Assistant:` lines, its newest `MAX_TRANSCRIPT_CHARS` at most."""
    lines = [
        f'{"User" if m.role == "user" else "Assistant"}: {m.content.strip()}'
        for m in messages
        if m.content.strip()
    ]
    text = '\n'.join(lines)
    return text[-MAX_TRANSCRIPT_CHARS:]


def _memory(
    text: str, conversation: Conversation, scope: Scope, messages: list[Message], applies_to: str | None
) -> book.MemoryInput:
    return book.MemoryInput(
        tenant=scope.label('tenant') or '',
        content=text,
        subject=scope.label('subject'),
        applies_to=applies_to,
        source='distilled',
        agent_key=conversation.agent_key,
        conversation_id=conversation.id,
        source_message_ids=[m.id for m in messages],
    )


def _valid(inputs: list[book.MemoryInput]) -> list[book.MemoryInput]:
    """Those a model's answer may have got wrong (empty, too long) are dropped, not the rest."""
    kept = []
    for memory in inputs:
        try:
            kept.append(book.checked(memory))
        except MemoryInvalid:
            logger.info('a distilled memory was dropped: %.80r', memory.content)
    return kept


# -- blocking ----------------------------------------------------------------------------------


def _window(store: Store, conversation_id: str) -> _Window | None:
    with store.read() as session:
        conversation = session.get(Conversation, conversation_id)
        if conversation is None:
            return None
        cursor = session.get(MemoryCursor, conversation_id)
        query = select(Message).where(
            Message.conversation_id == conversation_id,
            Message.role.in_(('user', 'assistant')),
            Message.status == 'complete',
        )
        if cursor is not None and cursor.distilled_until is not None:
            query = query.where(Message.id > cursor.distilled_until)
        messages = list(session.scalars(query.order_by(Message.id)))
        session.expunge_all()
    return _Window(conversation, messages)


def _advance(store: Store, conversation_id: str, until: str, written: int, error: str | None) -> None:
    with store.write() as session:
        cursor = session.get(MemoryCursor, conversation_id, with_for_update=True)
        if cursor is None:
            cursor = MemoryCursor(conversation_id=conversation_id, memories_written=0)
            session.add(cursor)
        if cursor.distilled_until is None or until > cursor.distilled_until:
            cursor.distilled_until = until
        cursor.last_distilled_at = utcnow()
        cursor.memories_written = (cursor.memories_written or 0) + written
        cursor.last_error = error
