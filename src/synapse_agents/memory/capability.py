"""`Memory()`: what is remembered about the conversation's scope, in the prompt and behind two tools.

    from synapse_agents.capabilities import Memory

    agent = Agent(model, instructions='You help the firm with its cases.', capabilities=[Memory()])

At the start of each run the capability reads, once, the newest `newest` memories the run's scope
sees (`book.scope_filter`: its tenant, subject and actor, from `Scope.of(ctx)`) and renders them as
one block after the agent's own instructions: the shared ones under one heading, the person's own
under another, never interleaved (`render`). A run without a tenant gets no block.

Two tools come with it (`tools=False` leaves them out):

- `save_memory(content, about_this_person=False)`: writes a memory of the run's tenant and subject
  (source `tool`). A personal one needs somebody at the other end (the run's actor): without one it
  is refused, never saved as shared instead. A shared one from a person who chose not to share is
  refused too (`book.sharing`).
- `search_memories(query, k=5)`: the memories of the scope closest in meaning (or the newest,
  without an embedder); each result says whether it applies to everyone or only to this person.

Both find their conversation, tenant and person through the run's context, in the playground, app
conversations and tasks alike. Inside a Synapse turn it uses the turn's store and settings; an app
running the agent itself builds it with `Memory.of(synapse)` or `Memory.at(database_url)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import anyio.to_thread
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import InstructionPart
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

from ..errors import MemoryInvalid, MemoryUnavailable
from ..scope import Scope
from ..settings import Settings
from ..store import Store
from ..store.in_turn import in_turn
from . import book
from .recall import Recall

PART_NAME = 'synapse_memories'
"""The name of the memory block among a request's instruction parts (what filled the prompt finds it by)."""
SHARED_HEADING = 'What is known here (memories; they may be out of date):'
PERSONAL_HEADING = 'What is known about the person you are talking to (it applies only to them):'
NOT_IN_A_TURN = (
    'Memory() reads its memories from a Synapse database: run the agent through Synapse (synapse '
    'serve, Synapse().conversation(...), a task), or build it with Memory.of(synapse) or '
    'Memory.at(database_url).'
)


def render(found: book.ScopedMemories) -> str:
    """The prompt block of `found`: shared memories first, then the person's own."""
    blocks = []
    if found.shared:
        blocks.append('\n'.join([SHARED_HEADING, *(f'- {m.content}' for m in found.shared)]))
    if found.personal:
        blocks.append('\n'.join([PERSONAL_HEADING, *(f'- {m.content}' for m in found.personal)]))
    return '\n\n'.join(blocks)


@dataclass(eq=False)
class MemoryCapability(AbstractCapability[Any]):
    """See the module docstring."""

    newest: int = 20
    """How many of the newest memories of the scope go into the prompt."""
    tools: bool = True
    """Whether `save_memory` and `search_memories` come with it."""
    store: Store | None = None
    settings: Settings | None = None
    _block: str = field(default='', init=False, repr=False)
    _toolset: FunctionToolset[Any] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.newest, bool) or not isinstance(self.newest, int) or not 0 <= self.newest <= 500:
            raise ValueError(f'Memory: newest must be a whole number from 0 to 500, not {self.newest!r}')

    def get_toolset(self) -> AbstractToolset[Any] | None:
        if self.tools and self._toolset is None:
            toolset: FunctionToolset[Any] = FunctionToolset()
            toolset.add_function(self.save_memory, name='save_memory')
            toolset.add_function(self.search_memories, name='search_memories')
            self._toolset = toolset
        return self._toolset

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        store, _settings = self._where()
        found = await anyio.to_thread.run_sync(book.newest_in_scope, store, Scope.of(ctx), self.newest)
        run = replace(self)
        run._toolset, run._block = self._toolset, render(found)
        return run

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        if not self._block:
            return request_context
        parameters = request_context.model_request_parameters
        parts = [
            *(parameters.instruction_parts or []),
            InstructionPart(self._block, dynamic=True, name=PART_NAME),
        ]
        return replace(request_context, model_request_parameters=replace(parameters, instruction_parts=parts))

    async def save_memory(self, ctx: RunContext[Any], content: str, about_this_person: bool = False) -> str:
        """Remember something for later conversations.

        Args:
            content: The fact or preference, in one or two plain sentences.
            about_this_person: True when it matters only to the person you are talking to (their
                preference, their situation); False when it is true for everyone here.
        """
        scope = Scope.of(ctx)
        tenant, actor = scope.label('tenant'), scope.label('actor')
        if tenant is None:
            return 'Not saved: this conversation belongs to no tenant, so there is nowhere to keep a memory.'
        store, settings = self._where()
        if about_this_person and actor is None:
            return (
                'Not saved: nobody is at the other end of this conversation, so there is no person '
                'for a personal memory to apply to (it was not saved as shared instead).'
            )
        if not about_this_person and actor is not None and not await _shares(store, settings, actor):
            return (
                'Not saved: the person you are talking to chose not to share what they say with '
                'others. Save it with about_this_person=true if it concerns only them.'
            )
        memory = book.MemoryInput(
            tenant=tenant,
            content=content,
            subject=scope.label('subject'),
            applies_to=actor if about_this_person else None,
            source='tool',
            created_by=actor,
            agent_key=ctx.agent.name if ctx.agent is not None else None,
            conversation_id=ctx.conversation_id,
        )
        try:
            written = await Recall.of(store, settings).remember([memory], user=actor)
        except MemoryInvalid as exc:
            return f'Not saved: {exc.problem}'
        if not written:
            return 'Already remembered: a memory saying this is stored.'
        whom = 'only to the person you are talking to' if about_this_person else 'to everyone here'
        return f'Saved (it applies {whom}).'

    async def search_memories(
        self, ctx: RunContext[Any], query: str, k: int = 5
    ) -> list[dict[str, Any]] | str:
        """Look through what is remembered here beyond the memories already in your instructions.

        Args:
            query: What you are looking for, in words.
            k: How many memories to return (1 to 20).
        """
        scope = Scope.of(ctx)
        if scope.label('tenant') is None:
            return 'Nothing to search: this conversation belongs to no tenant.'
        store, settings = self._where()
        try:
            answer = await Recall.of(store, settings).search(scope, query, max(1, min(int(k), 20)))
        except MemoryInvalid as exc:
            return f'Not searched: {exc.problem}'
        return [
            {
                'memory': found.memory.content,
                'applies_to': 'everyone'
                if found.applies_to_everyone
                else 'only the person you are talking to',
                'about': found.memory.subject or 'everything here',
                **({'similarity': found.score} if found.score is not None else {}),
            }
            for found in answer.results
        ]

    def _where(self) -> tuple[Store, Settings]:
        turn = in_turn()
        store = self.store or (turn.store if turn is not None else None)
        if store is None:
            raise MemoryUnavailable(NOT_IN_A_TURN)
        settings = self.settings or (turn.settings if turn is not None else Settings())
        return store, settings


async def _shares(store: Store, settings: Settings, actor: str) -> bool:
    chosen = await anyio.to_thread.run_sync(book.sharing, store, actor)
    return settings.share_memories if chosen is None else chosen
