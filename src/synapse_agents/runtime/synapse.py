"""`Synapse`: the runtime's front door for an app — conversations with agents, recorded like chats.

    from synapse_agents import Synapse

    async with Synapse() as syn:        # the settings, home and store `synapse serve` uses here
        conv = await syn.conversation(agent, tenant=('firm', '7'), actor=('user', '42'))
        reply = await conv.send('Hello')

Every turn runs through the same turn engine as the playground (`chat/engine.py`), so it is stored
the same way (messages, tool invocations, ledger rows, errors, interruptions) and shows in the
workbench's history, where it can be opened and continued. While open, a `Synapse` runs the root's
jobs (the heartbeat that tells other processes its turns are alive, and the start-up sweep).
`Synapse().conversation_sync(...)` is the blocking twin for scripts (`runtime/blocking.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import anyio.to_thread
import pluggy
from pydantic_ai.agent import AbstractAgent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import Model
from pydantic_ai.usage import UsageLimits

from ..chat.deps import given
from ..chat.request import ORIGINS, Origin
from ..chat.service import lookup_target
from ..conversations.repository import ConversationRepository
from ..conversations.sql_store import SqlConversationStore
from ..errors import ConversationNotFound, WrongAgent
from ..scope import Ref, Scope
from ..settings import LoadedSettings, Settings, load_settings
from ..store.ids import is_valid_id, shown_id
from ..tasks.placers import LivePlacer, placement_of
from ..tasks.service import task_service
from .assembled import SynapseRuntime
from .blocking import BlockingConversation, blocking_conversation, close_blocking, open_blocking
from .conversation import AppConversation, TurnSettings

if TYPE_CHECKING:
    from ..tasks.events import Fired


KNOWN_CONVERSATIONS = 4096
"""How many opened conversations' agent and scope a `Synapse` remembers (the oldest go first)."""


class Synapse:
    """An open Synapse for an app: its settings, store and agent catalog, and conversations.

    `project` is the folder whose `pyproject.toml` / `.env` / `SYNAPSE_*` settings apply (default:
    the current folder, as for `synapse serve`); `home`, `database_url` and `agents` override those
    settings. `discover=False` builds no catalog: agents are then passed as objects, never by slug.
    `plugins` is the root's plugin manager; `synapse_agents.Synapse` defaults to Synapse's own
    areas and the installed plugins (`default_plugins`, from the composition root).
    """

    def __init__(
        self,
        project: str | Path | None = None,
        *,
        home: str | Path | None = None,
        database_url: str | None = None,
        agents: Sequence[str] | None = None,
        demo: bool = False,
        discover: bool = True,
        settings: LoadedSettings | None = None,
        plugins: pluggy.PluginManager | None = None,
    ) -> None:
        overrides: dict[str, Any] = {
            'home': Path(home) if home is not None else None,
            'database_url': database_url,
            'agents': list(agents) if agents is not None else None,
        }
        if settings is not None and any(value is not None for value in overrides.values()):
            raise ValueError('pass either settings= or home=/database_url=/agents=, not both.')
        self._loaded = settings
        self._project = Path(project) if project is not None else None
        self._overrides = overrides
        self._demo = demo
        self._discover = discover
        self._plugins = plugins
        self._runtime: SynapseRuntime | None = None
        self._known: dict[str, tuple[str, Scope]] = {}
        """Conversations opened by id: their agent and stored scope (`_continued_scope`)."""
        self._log_store: SqlConversationStore | None = None

    # -- opening and closing -------------------------------------------------------------

    async def open(self) -> Self:
        """Load the settings, open (and migrate, for SQLite) the store, start the root's jobs."""
        if self._runtime is not None:
            return self
        loaded = self._loaded
        if loaded is None:
            loaded = await anyio.to_thread.run_sync(lambda: load_settings(self._overrides, cwd=self._project))
        runtime = await anyio.to_thread.run_sync(
            lambda: SynapseRuntime.open(
                loaded,
                demo=self._demo,
                agents=self._discover,
                plugins=self._plugins or self.default_plugins(),
            )
        )
        try:
            await runtime.start()
        except BaseException:
            runtime.close()
            raise
        self._runtime = runtime
        return self

    def default_plugins(self) -> pluggy.PluginManager:
        """The plugin manager of a root opened without `plugins`: the composition's
        (`synapse_agents.Synapse`, in `runtime/root.py`, gives the default plugins)."""
        raise TypeError('pass plugins=..., or use synapse_agents.Synapse (the default plugins)')

    async def close(self) -> None:
        """Finish queued writes, stop the jobs and close the store (open conversations stop working)."""
        runtime, self._runtime = self._runtime, None
        if runtime is None:
            return
        try:
            await runtime.stop()
        finally:
            runtime.close()

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def runtime(self) -> SynapseRuntime:
        """The composition root (settings, store, catalog, chat service); raises when not open."""
        if self._runtime is None:
            raise RuntimeError(
                'Synapse is not open: use `async with Synapse() as syn:` or `await syn.open()`.'
            )
        return self._runtime

    @property
    def conversation_store(self) -> SqlConversationStore:
        """pydantic-ai's `ConversationStore` on this Synapse's database (see docs/conversation-store.md)."""
        if self._log_store is None:
            self._log_store = SqlConversationStore(self.runtime.store)
        return self._log_store

    # -- conversations -------------------------------------------------------------------

    async def conversation(
        self,
        agent: AbstractAgent[Any, Any] | str,
        *,
        id: str | None = None,
        tenant: Ref | None = None,
        actor: Ref | None = None,
        subject: Ref | None = None,
        model: Model | str | None = None,
        deps: Any = None,
        key: str | None = None,
        usage_limits: UsageLimits | None = None,
        capabilities: Sequence[AbstractCapability[Any]] = (),
        origin: Origin = 'app',
    ) -> AppConversation:
        """A conversation with `agent` (an agent object or a discovered agent's slug).

        Without `id` a new conversation is opened on the first `send`. With `id` the stored one is
        continued: a `tenant` or `subject` given must be the one it was opened with
        (`ScopeMismatch` otherwise, before any of it is read), `actor` names who talks now.
        `model` overrides the agent's model (a pydantic-ai model or a model id such as
        `'openai:gpt-5.6-sol'`); `deps` are passed to every run; `key` names an agent object that
        discovery does not know (default: its `name`).
        """
        scope = Scope(tenant=tenant, actor=actor, subject=subject)  # InvalidScope before anything
        if origin not in ORIGINS:
            raise ValueError(f'origin: {origin!r:.80} is not one of {", ".join(ORIGINS)}.')
        target = await lookup_target(self.runtime, agent, key=key)
        if deps is not None:
            target.deps_factory = given(deps)  # used as they are: never entered nor torn down
        runtime = self.runtime
        settings = TurnSettings(
            model=model,
            usage_limits=usage_limits,
            capabilities=tuple(capabilities),
            origin=origin,
        )
        if id is not None:
            scope = await self._continued_scope(id, target.slug, scope)
        return AppConversation(runtime.chat_service().engine, target, scope, settings, conversation_id=id)

    def conversation_sync(self, agent: AbstractAgent[Any, Any] | str, **options: Any) -> BlockingConversation:
        """The blocking twin of `conversation` for scripts: `Synapse().conversation_sync(agent).send('hi')`.

        Opens this Synapse on a private event loop thread when it is not open yet (close it with
        `close_sync()`, or let the interpreter's exit do it)."""
        return blocking_conversation(self, agent, options)

    def close_sync(self) -> None:
        """Close a Synapse that `conversation_sync` opened."""
        close_blocking(self)

    # -- events ---------------------------------------------------------------------------

    async def fire(
        self,
        event: str,
        *,
        tenant: Ref | None = None,
        subject: Ref | None = None,
        context: dict[str, Any] | None = None,
    ) -> Fired:
        """Start every standing agent listening to `event` in `tenant` (see docs/tasks.md).

        The same event on the same subject in the same tenant within an agent's debounce window
        runs once. Returns the tasks it queued and the queued ones it folded into; a bad name,
        scope or context raises `TaskError` before anything is stored."""
        service = task_service(self.runtime)
        return await anyio.to_thread.run_sync(
            lambda: service.fire(event, tenant=tenant, subject=subject, context=context)
        )

    def fire_sync(
        self,
        event: str,
        *,
        tenant: Ref | None = None,
        subject: Ref | None = None,
        context: dict[str, Any] | None = None,
    ) -> Fired:
        """The blocking twin of `fire` (for signal handlers and scripts); opens this Synapse on a
        private event loop thread when it is not open yet."""
        if self._runtime is None:
            open_blocking(self)
        return task_service(self.runtime).fire(event, tenant=tenant, subject=subject, context=context)

    def placer(self, name: str) -> Callable[..., Fired | None]:
        """A signal receiver that asks the placer `name` (the `placers` setting) what an app object
        fires, and fires it: `post_save.connect(syn.placer('file_uploaded'), sender=File)`."""

        def placers() -> dict[str, str]:
            runtime = self._runtime
            return (runtime.refresh_settings() if runtime is not None else self._settings_now()).placers

        placer = LivePlacer(name, placers)

        def receive(*args: Any, **kwargs: Any) -> Fired | None:
            placement = placement_of(placer.current()(*args, **kwargs), name)
            if placement is None:
                return None
            return self.fire_sync(
                placement.event, tenant=placement.tenant, subject=placement.subject, context=placement.context
            )

        receive.__name__ = f'synapse_placer_{name}'
        return receive

    def _settings_now(self) -> Settings:
        loaded = self._loaded or load_settings(self._overrides, cwd=self._project)
        return loaded.settings

    # -- agents and scopes ---------------------------------------------------------------

    async def _continued_scope(self, conversation_id: str, slug: str, asked: Scope) -> Scope:
        """The scope a continued conversation's turns run with (its stored agent and scope checked).

        Those never change once stored, so a conversation opened before is checked from memory; one
        deleted since then is refused by its next turn (`ConversationNotFound`), as the engine
        reads the conversation again before every turn."""
        if not is_valid_id(conversation_id):
            raise ConversationNotFound(f'No conversation with id {shown_id(conversation_id)}.')
        known = self._known.get(conversation_id)
        if known is None:
            repository = ConversationRepository(self.runtime.store)
            row = await anyio.to_thread.run_sync(repository.facts, conversation_id)
            if row is None:
                raise ConversationNotFound(f'No conversation with id {shown_id(conversation_id)}.')
            known = self._known[conversation_id] = (row.agent_key, Scope.stored(row, 'conversations'))
            if len(self._known) > KNOWN_CONVERSATIONS:
                self._known.pop(next(iter(self._known)))
        agent_key, stored = known
        if agent_key != slug:
            raise WrongAgent(
                f'Conversation {conversation_id!r} belongs to agent {agent_key!r}, not {slug!r}.'
            )
        return stored.continued_with(asked, conversation_id)
