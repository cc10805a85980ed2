"""pydantic-ai capabilities an app adds to its own agents: Synapse's rules without Synapse's turns.

    from synapse_agents.capabilities import Spending

    async with Synapse() as syn:
        agent = Agent(model, capabilities=[Spending.of(syn, tenant='org:acme', user='user:42')])

    spending = Spending.at('postgresql://...', tenant='org:acme')  # a database, no Synapse open

`Spending` holds each model request to the spending limits and the app's credits, and writes its
ledger row (see docs/accounting.md). `UsageCall` is what the app's `usage_recorder` is asked and
told about each call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .accounting.capability import Spending as _Spending
from .accounting.usage_recorder import UsageCall
from .settings import Settings, load_settings
from .store.setup import open_store

if TYPE_CHECKING:
    from .runtime.synapse import Synapse

__all__ = ['Spending', 'UsageCall']


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
        if settings is None:
            overrides = {'database_url': database_url}
            settings = load_settings(overrides, cwd=Path(project) if project is not None else None).settings
        elif database_url is not None:
            settings = settings.model_copy(update={'database_url': database_url})
        spending = cls(open_store(settings, auto_upgrade=True), settings=settings, **options)
        spending._owned = True
        return spending

    def close(self) -> None:
        """Close the database `Spending.at` opened (a `Spending.of` leaves the Synapse's open)."""
        if self._owned:
            self.store.close()
