"""pydantic-ai capabilities an app adds to its own agents: Synapse's rules without Synapse's turns.

    from synapse_agents.capabilities import Compression, Rules, Spending

    # in Synapse's turns: the turn's database
    agent = Agent(model, capabilities=[Rules(), Compression(budget_tokens=8000, model='openai:gpt-5-mini')])

    async with Synapse() as syn:
        agent = Agent(model, capabilities=[Spending.of(syn, tenant='org:acme', user='user:42')])

    spending = Spending.at('postgresql://...', tenant='org:acme')  # a database, no Synapse open

`Spending` holds each model request to the spending limits and the app's credits, and writes its
ledger row (see docs/accounting.md). `UsageCall` is what the app's `usage_recorder` is asked and
told about each call. `Rules` puts the rules people wrote for the conversation's tenant, subject
and actor at the top of the prompt; `Compression` sends a long conversation's older turns as a
stored summary; `Memory` puts what is remembered about the scope in the prompt, with tools to save
and search memories (see docs/memory.md); `Privacy` sends personal data to the model as placeholders
and restores the reply (see docs/privacy.md); `Retrieval` gives the agent a search tool over document
sources, with citations (see docs/retrieval.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from .accounting.capability import Spending as _Spending
from .accounting.usage_recorder import UsageCall
from .compression.capability import CompressionCapability
from .memory.capability import MemoryCapability
from .privacy.capability import PrivacyCapability
from .retrieval.capability import RetrievalCapability
from .rules.capability import RulesCapability
from .settings import Settings, load_settings
from .store import Store
from .store.setup import open_store

if TYPE_CHECKING:
    from .runtime.synapse import Synapse

__all__ = ['Compression', 'Memory', 'Privacy', 'Retrieval', 'Rules', 'Spending', 'UsageCall']


@dataclass(eq=False)
class Spending(_Spending):
    """Spending limits and the app's credits for each model request of the agent it is added to.

    Build it with `Spending.of(synapse, ...)` (an open `Synapse`: its database and settings) or
    `Spending.at(database_url, ...)`. Options: `tenant` and `user` (`type:id`; unset: the Synapse
    scope in the run's metadata), `agent` (the ledger's agent key; unset: the agent's name),
    `preset`, `conversation_id`, `usage_recorder`, `count_tokens`. One instance serves any number of
    concurrent runs.
    """

    _owned: bool = field(default=False, init=False, repr=False)

    @classmethod
    def of(cls, synapse: Synapse, **options: Any) -> Spending:
        """On the database of an open `synapse`, with its settings (rates, reference currency,
        `usage_recorder`)."""
        runtime = synapse.runtime
        return cls(runtime.store, settings=runtime.settings, **options)

    @classmethod
    def at(
        cls,
        database_url: str | None = None,
        *,
        project: str | Path | None = None,
        settings: Settings | None = None,
        **options: Any,
    ) -> Spending:
        """On the database at `database_url` (default: the one `synapse serve` uses in `project`),
        with the settings of `project` (the current folder by default) unless `settings` are given.
        SQLite is migrated; a PostgreSQL database must be at this release's schema (`StoreNotReady`).
        Blocking; `close()` closes the database."""
        settings = _settings_for(database_url, project, settings)
        spending = cls(open_store(settings, auto_upgrade=True), settings=settings, **options)
        spending._owned = True
        return spending

    def close(self) -> None:
        """Close the database `Spending.at` opened (a `Spending.of` leaves the Synapse's open)."""
        if self._owned:
            self.store.close()


@dataclass(eq=False)
class Rules(RulesCapability):
    """The rules of the run's tenant, subject and actor, at the top of each prompt (docs/memory.md).

    `Rules()` reads the Synapse turn's database; outside Synapse's turns build it with
    `Rules.of(synapse)` or `Rules.at(database_url)`, and pass the scope in the run's metadata
    (`metadata={'synapse.scope': Scope(...).as_json()}`).
    """

    _owned: bool = field(default=False, init=False, repr=False)

    @classmethod
    def of(cls, synapse: Synapse) -> Rules:
        """On the database and settings (the headings) of an open `synapse`."""
        runtime = synapse.runtime
        return cls(store=runtime.store, settings=runtime.settings)

    @classmethod
    def at(
        cls,
        database_url: str | None = None,
        *,
        project: str | Path | None = None,
        settings: Settings | None = None,
    ) -> Rules:
        """On the database at `database_url` (default: the one `synapse serve` uses in `project`);
        blocking; `close()` closes it."""
        settings = _settings_for(database_url, project, settings)
        rules = cls(store=open_store(settings, auto_upgrade=True), settings=settings)
        rules._owned = True
        return rules

    def close(self) -> None:
        """Close the database `Rules.at` opened."""
        if self._owned and self.store is not None:
            self.store.close()


@dataclass(eq=False)
class Compression(CompressionCapability):
    """A long conversation's older turns sent as a stored summary (docs/memory.md).

    `Compression(budget_tokens=8000, keep_last=4, model='openai:gpt-5-mini')`: `budget_tokens` and
    `model` are required. In Synapse's turns it keeps its summaries in the turn's database; an app
    running the agent itself builds it with `Compression.at(database_url, ...)` and gives each run
    a `conversation_id`.
    """

    _owned: bool = field(default=False, init=False, repr=False)

    @classmethod
    def at(
        cls,
        database_url: str | None = None,
        *,
        project: str | Path | None = None,
        settings: Settings | None = None,
        **options: Any,
    ) -> Compression:
        """On the database at `database_url` (default: the one `synapse serve` uses in `project`);
        blocking; `close()` closes it."""
        settings = _settings_for(database_url, project, settings)
        compression = cls(store=open_store(settings, auto_upgrade=True), **options)
        compression._owned = True
        return compression

    def close(self) -> None:
        """Close the database `Compression.at` opened."""
        if self._owned and self.store is not None:
            self.store.close()


class _OnADatabase:
    """`of(synapse)`, `at(database_url)` and `close()` for a capability built on `store` and `settings`."""

    store: Store | None
    _owned: bool

    if TYPE_CHECKING:

        def __init__(self, *, store: Store | None, settings: Settings | None, **options: Any) -> None: ...

    @classmethod
    def of(cls, synapse: Synapse, **options: Any) -> Self:
        """On the database and settings of an open `synapse`."""
        runtime = synapse.runtime
        return cls(store=runtime.store, settings=runtime.settings, **options)

    @classmethod
    def at(
        cls,
        database_url: str | None = None,
        *,
        project: str | Path | None = None,
        settings: Settings | None = None,
        **options: Any,
    ) -> Self:
        """On the database at `database_url` (default: the one `synapse serve` uses in `project`);
        blocking; `close()` closes it."""
        settings = _settings_for(database_url, project, settings)
        built = cls(store=open_store(settings, auto_upgrade=True), settings=settings, **options)
        built._owned = True
        return built

    def close(self) -> None:
        """Close the database `at` opened (`of` leaves the Synapse's open)."""
        if self._owned and self.store is not None:
            self.store.close()


@dataclass(eq=False)
class Memory(_OnADatabase, MemoryCapability):
    """What is remembered about the run's scope: the newest memories in the prompt, and the tools
    `save_memory` and `search_memories` (docs/memory.md).

    `Memory(newest=20, tools=True)`. In Synapse's turns it reads the turn's database; outside them
    build it with `Memory.of(synapse)` or `Memory.at(database_url)`, and pass the scope in the run's
    metadata (`metadata={'synapse.scope': Scope(...).as_json()}`).
    """

    _owned: bool = field(default=False, init=False, repr=False)


@dataclass(eq=False)
class Privacy(_OnADatabase, PrivacyCapability):
    """Personal data replaced by placeholders in what leaves for the model, restored in the reply,
    the stream and the tools' arguments (docs/privacy.md). It orders itself inside `Rules`, `Memory`
    and `Compression`; a capability of your own that adds text to requests must be listed before it.

    `Privacy(keep=['PERSON'])`: `keep` lists the entities left in clear (unset: the `privacy_except`
    setting, `['PERSON']` by default; `[]` redacts everything). In Synapse's turns the vault is the
    turn's database; outside them build it with `Privacy.of(synapse)` or `Privacy.at(database_url)`
    and give each run a `conversation_id` (with neither, a run keeps its placeholders to itself).
    """

    _owned: bool = field(default=False, init=False, repr=False)


@dataclass(eq=False)
class Retrieval(_OnADatabase, RetrievalCapability):
    """A search tool over the named document sources, whose results carry citations (docs/retrieval.md).

    `Retrieval(sources=['handbook'], k=5)`. In Synapse's turns it searches the turn's database, with
    the run's tenant; outside them build it with `Retrieval.of(synapse, sources=[...])` or
    `Retrieval.at(database_url, sources=[...])`, and pass the scope in the run's metadata.
    """

    _owned: bool = field(default=False, init=False, repr=False)


def _settings_for(
    database_url: str | None, project: str | Path | None, settings: Settings | None
) -> Settings:
    """The settings of `project` (the current folder by default) unless `settings` are given, with
    `database_url` when one is named."""
    if settings is None:
        overrides = {'database_url': database_url}
        return load_settings(overrides, cwd=Path(project) if project is not None else None).settings
    if database_url is not None:
        return settings.model_copy(update={'database_url': database_url})
    return settings
