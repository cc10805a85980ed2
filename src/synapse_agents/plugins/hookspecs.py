"""The hooks through which Synapse's own areas and third-party plugins extend Synapse.

A plugin is a module (or any object) with functions named after these hooks, each marked with
`@hookimpl`; it implements only the hooks it needs. Synapse's own areas are plugins the same way
(each area's `plugin` module, listed in `synapse_agents.plugins.defaults`); a package installed
with an entry point in the `synapse_agents.plugins` group is loaded at start-up:

    [project.entry-points."synapse_agents.plugins"]
    my_feature = "my_feature.synapse_plugin"

Agent behaviour is not extended here but with pydantic-ai capabilities on the agent.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import pluggy

if TYPE_CHECKING:
    import typer
    from fastapi import APIRouter
    from sqlalchemy import Table

    from ..events import Compressed
    from ..settings import LoadedSettings, Settings
    from ..store import Store

PROJECT = 'synapse_agents'

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

_AREA_NAME = re.compile(r'^[a-z][a-z0-9-]{0,39}$')

AreaState = TypeVar('AreaState')
JobFunction = Callable[[], object] | Callable[[], Awaitable[object]]


class Root(Protocol):
    """What a hook (and an area below the front doors) sees of the runtime root: its settings,
    its store and its areas' state. `synapse_agents.runtime.assembled.SynapseRuntime` is one."""

    loaded: LoadedSettings
    store: Store
    maintenance: bool
    plugins: pluggy.PluginManager

    @property
    def settings(self) -> Settings: ...

    def refresh_settings(self) -> Settings: ...

    def area(self, name: str, make: Callable[[Root], AreaState]) -> AreaState: ...


@dataclass(frozen=True)
class Job:
    """One kind of background work the root runs (`runtime/jobs.py` runs it)."""

    name: str
    run: JobFunction
    interval_s: float | None = None
    """Seconds between runs; None runs it once, at start-up, before the root serves."""
    run_at_start: bool = True
    """A periodic job's first run is at start (else after one interval)."""

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ValueError('a job needs a name')
        if self.interval_s is not None and not self.interval_s > 0:
            raise ValueError(f'job {self.name!r}: interval_s must be more than 0, not {self.interval_s!r}')


@dataclass(frozen=True)
class DashboardArea:
    """A nav entry of the dashboard: `name` (a slug), `path` (in the dashboard) and `label`."""

    name: str
    path: str
    label: str

    def __post_init__(self) -> None:
        if not _AREA_NAME.match(self.name):
            raise ValueError(f'dashboard area name {self.name!r}: lowercase letters, digits and -')
        if not self.path.startswith('/') or self.path.startswith('//'):
            raise ValueError(f'dashboard area {self.name!r}: path {self.path!r} must start with one /')
        if not self.label.strip():
            raise ValueError(f'dashboard area {self.name!r} needs a label')


@hookspec
def register_routes() -> Sequence[APIRouter]:  # type: ignore[empty-body]
    """FastAPI routers to include in the app (the access policy applies to them like to any route).

    Built-in routes come first: a plugin route cannot replace one. Paths under `/api/` answer JSON;
    other paths not claimed here are the dashboard's.
    """


@hookspec
def register_dashboard_areas() -> Sequence[DashboardArea]:  # type: ignore[empty-body]
    """Nav entries of the dashboard, served by `GET /api/extensions`."""


@hookspec
def register_jobs(runtime: Root) -> Sequence[Job]:  # type: ignore[empty-body]
    """Background jobs for the root's job runner (start-up work, or periodic ticks); work that must
    survive a restart or run on another machine is a task (`synapse_agents.tasks`), not a job."""


TaskJob = Callable[['Root', dict[str, Any]], Awaitable[dict[str, Any]]]
"""A kind of work run once later on the task queue: given the root and the task's context, it does
the work and answers what it did (the task's output)."""


@hookspec
def register_task_jobs() -> Mapping[str, TaskJob]:  # type: ignore[empty-body]
    """Kinds of work that run on the task queue (`synapse_agents.tasks.queue.enqueue_job`), by name.

    A task of kind `k` is an `agent_tasks` row with agent key `job:k`: claimed, swept, published to
    Celery and listed like an agent's run; a worker runs it by calling the function with its context.
    """


@hookspec
def register_tables() -> Sequence[Table]:  # type: ignore[empty-body]
    """SQLAlchemy tables the plugin owns, declared on the store's one metadata
    (`synapse_agents.store.schema.Base.metadata`); their migrations stay in `store/migrations/`."""


@hookspec
def register_rag_connectors() -> Sequence[Any]:  # type: ignore[empty-body]
    """Kinds of retrieval source: objects with the shape of `synapse_agents.retrieval.connectors.
    Connector` (a `kind` slug, a `label`, `check(config, home)` and `files(config, home)`).

    A connector package is an installed plugin: a module with this hook marked `@hookimpl`, named
    under the `synapse_agents.plugins` entry point (`synapse_agents.retrieval.url_connector` is the
    example). Two connectors may not share a kind, nor take a built-in one (`folder`, `upload`).
    """


@hookspec
def register_commands(cli: typer.Typer) -> None:
    """Add commands or Typer sub-apps to the `synapse` command (`cli.add_typer(sub, name=...)`)."""


@hookspec
def conversation_compressed(runtime: Root, compressed: Compressed) -> None:
    """`Compression` summarised a conversation's older turns (the summary is stored). Called on the
    turn's event loop while the turn runs: queue work (a task), never do it here."""
