"""What the MCP server's tools do: list agents, build sandbox agents and presets, run an agent and
inspect what it did, clean the sandbox up.

A coding assistant builds and tries agents through these without touching real ones: it creates and
changes **sandbox** entries only (a key a real agent or preset holds is refused), every run is a
stored conversation with origin `mcp` (History shows it, with its trace and ledger rows, held to the
spending limits like any turn), and the cleanup removes the sandbox in one transaction. Each method
returns plain JSON; a refusal is a `ToolError` whose message says what was wrong, which the client
receives as the tool's error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from pydantic_ai.messages import ToolCallPart
from pydantic_core import to_jsonable_python
from sqlalchemy import select

from ..chat.request import Origin
from ..chat.service import current_snapshot, lookup_target
from ..conversations.repository import ConversationRepository
from ..conversations.tables import Message
from ..errors import SynapseError
from ..registry import agents_store, presets_store
from ..registry.agents_runtime import CONFIG_PREFIX, list_configured
from ..registry.errors import RegistryError
from ..registry.read import by_key
from ..registry.tables import AgentConfig, Preset
from ..runtime.conversation import AppConversation, TurnSettings
from ..scope import Scope
from ..store.ids import is_valid_id, shown_id
from ..traces.edge import trimmed
from ..traces.read import tree
from ..web.routes.thread_schemas import Thread
from ..workflows import book as workflows_book

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

ORIGIN: Origin = 'mcp'
"""The origin of the conversations the MCP tools run."""


def _refused(error: Exception) -> ToolError:
    return ToolError(str(error))


class SandboxTools:
    """The tools' work on one Synapse runtime (started: runs need its engine and write queue)."""

    def __init__(self, runtime: SynapseRuntime) -> None:
        self.runtime = runtime

    async def list_agents(self) -> dict[str, Any]:
        """The code agents discovery found, the configured agents, and the sandbox agents."""
        runtime = self.runtime
        cards: list[dict[str, Any]] = []
        if runtime.catalog is not None:
            listing = (await current_snapshot(runtime.catalog)).listing()
            cards += [_card(card, configured=False) for card in listing.agents]
        configured = await list_configured(runtime.store, runtime.settings.secret_key, runtime.catalog)
        cards += [_card(agent.card, configured=True) for agent in configured]
        sandbox = await anyio.to_thread.run_sync(_sandbox_agents, runtime.store)
        return {'agents': cards, 'sandbox_agents': sandbox}

    async def save_sandbox_agent(self, key: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Create the sandbox agent `key`, or change it when it is one already (a new version)."""
        store = self.runtime.store

        def saved() -> tuple[AgentConfig, bool]:
            existing = by_key(store, AgentConfig, key)
            if existing is not None and not existing.is_sandbox:
                raise ToolError(
                    f'{key!r} is a real configured agent: these tools change sandbox agents only.'
                )
            if existing is None:
                return agents_store.create(store, {'key': key, **fields, 'is_sandbox': True}), True
            return agents_store.update(store, key, fields), False

        try:
            row, created = await anyio.to_thread.run_sync(saved)
        except (RegistryError, SynapseError) as exc:
            raise _refused(exc) from None
        return {'agent': f'{CONFIG_PREFIX}{row.key}', 'version': row.version, 'created': created}

    async def save_sandbox_preset(self, key: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Create the sandbox preset `key`, or change it when it is one already."""
        store = self.runtime.store

        def saved() -> tuple[Preset, bool]:
            existing = by_key(store, Preset, key)
            if existing is not None and not existing.is_sandbox:
                raise ToolError(f'{key!r} is a real preset: these tools change sandbox presets only.')
            if existing is None:
                return presets_store.create(store, {'key': key, **fields, 'is_sandbox': True}), True
            return presets_store.update(store, key, fields), False

        try:
            row, created = await anyio.to_thread.run_sync(saved)
        except (RegistryError, SynapseError) as exc:
            raise _refused(exc) from None
        return {'preset': row.key, 'model': row.model, 'created': created}

    async def run_agent(
        self, agent: str, message: str, model: str | None = None, conversation_id: str | None = None
    ) -> dict[str, Any]:
        """One turn of `agent` (a slug, `config:<key>` for a configured or sandbox agent), in a new
        conversation or `conversation_id`; what it answered, the tools it called, what it cost."""
        runtime = self.runtime
        if conversation_id is not None and not is_valid_id(conversation_id):
            raise ToolError(f'{shown_id(conversation_id)} is not a conversation id.')
        try:
            target = await lookup_target(runtime, agent)
            settings = TurnSettings(model=model, origin=ORIGIN)
            engine = runtime.chat_service().engine
            conversation = AppConversation(engine, target, Scope(), settings, conversation_id=conversation_id)
            reply = await conversation.send(message)
        except Exception as exc:  # the turn's own error, stored as its error card
            raise ToolError(f'{type(exc).__name__}: {exc}') from None
        calls = [
            {'name': part.tool_name, 'arguments': part.args_as_dict()}
            for item in reply.messages
            for part in item.parts
            if isinstance(part, ToolCallPart)
        ]
        return {
            'output': to_jsonable_python(reply.output, fallback=repr),
            'conversation_id': reply.conversation_id,
            'message_id': reply.message_id,
            'run_id': reply.run_id,
            'model': reply.model,
            'tool_calls': calls,
            'input_tokens': reply.usage.input_tokens,
            'output_tokens': reply.usage.output_tokens,
            'cost': None if reply.cost is None else str(reply.cost),
            'duration_ms': reply.duration_ms,
        }

    async def inspect_conversation(self, conversation_id: str) -> dict[str, Any]:
        """A stored conversation as the API shows it (messages, tool calls, tokens, cost, errors) and
        the trace of each of its turns."""
        runtime = self.runtime
        if not is_valid_id(conversation_id):
            raise ToolError(f'{shown_id(conversation_id)} is not a conversation id.')
        await runtime.chat_service().writes.drain()  # the rows of a turn that just ended
        thread = await anyio.to_thread.run_sync(ConversationRepository(runtime.store).thread, conversation_id)
        if thread is None:
            raise ToolError(f'No conversation with id {shown_id(conversation_id)}.')
        shown = Thread.of(thread, stateless=False, agent_available=True).model_dump(mode='json')
        runs = await anyio.to_thread.run_sync(_run_ids, runtime.store, conversation_id)
        traces = {}
        for run_id in runs:
            found = await anyio.to_thread.run_sync(tree, runtime.store, run_id)
            if found is not None:
                traces[run_id] = to_jsonable_python(trimmed(found))
        return {**shown, 'traces': traces}

    async def cleanup_sandbox(self) -> dict[str, Any]:
        """Remove every sandbox workflow (its runs first), agent and preset, in one transaction; how
        many of each."""
        removed = await anyio.to_thread.run_sync(
            agents_store.cleanup_sandbox, self.runtime.store, [workflows_book.cleanup_sandbox]
        )
        return {'deleted': {'agents': removed.agents, 'presets': removed.presets, **removed.others}}


def _card(card: Any, *, configured: bool) -> dict[str, Any]:
    model = card.model
    return {
        'agent': card.slug,
        'name': card.name,
        'description': card.description,
        'model': None if model is None else model.id,
        'configured': configured,
    }


def _sandbox_agents(store: Any) -> list[dict[str, Any]]:
    with store.read() as session:
        rows = session.execute(
            select(AgentConfig.key, AgentConfig.version, AgentConfig.preset_key)
            .where(AgentConfig.is_sandbox.is_(True))
            .order_by(AgentConfig.key)
        ).all()
    return [
        {'agent': f'{CONFIG_PREFIX}{key}', 'version': version, 'preset': preset}
        for key, version, preset in rows
    ]


def _run_ids(store: Any, conversation_id: str) -> list[str]:
    with store.read() as session:
        return [
            run_id
            for run_id in session.scalars(
                select(Message.run_id)
                .where(Message.conversation_id == conversation_id, Message.role == 'assistant')
                .order_by(Message.id)
            )
            if run_id
        ]
