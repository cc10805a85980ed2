"""What the turn engine runs: an agent with the facts discovery (or the registry) found about it.

A configured agent's target carries its version (recorded on the answer as `meta.agent_version`),
its preset's key (on its ledger rows, for spending limits), its access rule (`AccessRule`: checked
for every origin but the playground, see docs/registry.md) and the error that keeps it from running
(an unknown tool, a disabled agent).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_ai.agent import AbstractAgent
from pydantic_ai.models import Model

from ..errors import AgentAccessDenied
from ..scope import Ref, Scope
from .model_choice import DEMO_MODEL_ID, DEMO_PROVIDER


def _matches(pattern: str, ref: Ref | None) -> bool:
    if ref is None:
        return False
    kind, sep, ident = pattern.partition(':')
    return ref[0] == kind and (not sep or ref[1] == ident)


@dataclass(frozen=True)
class AccessRule:
    """Who may use an agent: tenant and actor patterns, `type:id` or `type` (empty: anyone)."""

    tenants: tuple[str, ...] = ()
    actors: tuple[str, ...] = ()

    @classmethod
    def of(cls, access: Any) -> AccessRule:
        """From a configured agent's `access` JSON (`{"tenants": [...], "actors": [...]}`)."""
        data = access if isinstance(access, dict) else {}
        return cls(_patterns(data.get('tenants')), _patterns(data.get('actors')))

    @property
    def unrestricted(self) -> bool:
        return not self.tenants and not self.actors

    def check(self, scope: Scope, agent: str) -> None:
        """Raise `AgentAccessDenied` when `scope` is not admitted."""
        for axis, patterns in (('tenant', self.tenants), ('actor', self.actors)):
            ref: Ref | None = getattr(scope, axis)
            if patterns and not any(_matches(pattern, ref) for pattern in patterns):
                who = f'{axis} {scope.label(axis)}' if ref is not None else f'a conversation with no {axis}'
                raise AgentAccessDenied(
                    f'{agent} may not be used by {who}: its access admits {axis}s '
                    f'{", ".join(repr(p) for p in patterns)}.'
                )


def _patterns(value: Any) -> tuple[str, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        return ()
    return tuple(str(item) for item in value if str(item))


@dataclass
class TurnTarget:
    """An agent to chat with. Built from a discovered agent, or directly (tests, benchmarks)."""

    agent: AbstractAgent[Any, Any] | None
    slug: str
    name: str
    stateless: bool = False
    deps_factory: Callable[[], Any] | None = None
    deps_required: bool = False
    missing_env: str | None = None
    own_model_id: str | None = None
    """The agent's own model as a selector id (`demo` for the demo model), None when it has none."""
    agent_version: int | None = None
    """A configured agent's version, recorded on the answer (`meta.agent_version`)."""
    access: AccessRule = field(default_factory=AccessRule)
    """Who may use it outside the playground."""
    setup_error: BaseException | None = None
    """Why it cannot run (the turn then ends with this error, stored as its error card)."""
    own_model_error: BaseException | None = None
    """Why its own model cannot be built (another model chosen in the playground still runs)."""
    preset: str | None = None
    """The registry preset a configured agent runs with (its ledger rows and spending limits name it)."""
    kind: str = 'code'
    """How the agent is known: `code` (discovered), `config` (configured), `ephemeral` (an agent
    object the Python API was handed that discovery does not know): its runs' trace origin."""
    deps_schema: dict[str, Any] | None = None
    """A configured agent's JSON Schema for its deps: the turn's deps are the values a request
    sent (or the conversation's stored ones), checked against it (`targets/deps_values.py`)."""
    deps_lifetime: Literal['turn', 'server'] | None = None
    """The agent's own deps lifetime (None: the `deps_lifetime` setting; `chat/deps.py`)."""
    deps_key: str | None = None
    """The `[tool.synapse.deps]` key a discovered agent's deps factory is named under (the
    "needs deps" hint names it); None for an agent discovery does not know."""
    rag_sources: tuple[str, ...] = ()
    """The retrieval sources (slugs) a configured agent may search: its turns get a `Retrieval`
    over them (docs/retrieval.md)."""

    @classmethod
    def from_discovered(cls, found: Any) -> TurnTarget:
        """From a `synapse_agents.discovery.DiscoveredAgent` (or a configured agent: its own target)."""
        own_target = getattr(found, 'turn_target', None)
        if callable(own_target):
            target: TurnTarget = own_target()
            if target.preset is None:
                target.preset = getattr(found, 'preset_key', None)
            return target
        model_info = getattr(getattr(found, 'info', None), 'model', None)
        own: str | None = None
        if model_info is not None:
            own = DEMO_MODEL_ID if getattr(model_info, 'is_demo', False) else getattr(model_info, 'id', None)
        return cls(
            agent=found.agent,
            slug=found.slug,
            name=found.name,
            stateless=bool(found.stateless),
            deps_factory=found.deps_factory,
            deps_required=bool(found.deps_required),
            missing_env=found.missing_env,
            own_model_id=own,
            deps_lifetime=getattr(found, 'deps_lifetime', None),
            deps_key=getattr(found, 'deps_key', None),
        )

    @classmethod
    def for_agent(
        cls, agent: AbstractAgent[Any, Any], *, slug: str | None = None, **kwargs: Any
    ) -> TurnTarget:
        """For an agent passed in directly; its own model id is read from the agent."""
        name = agent.name or 'agent'
        kwargs.setdefault('own_model_id', model_id_of(agent.model))
        kwargs.setdefault('kind', 'ephemeral')
        return cls(agent=agent, slug=slug or name, name=name, **kwargs)


def model_id_of(model: Model | str | None) -> str | None:
    """A selector id for an agent's model setting."""
    if model is None:
        return None
    if isinstance(model, str):
        return model
    if model.system == DEMO_PROVIDER:
        return DEMO_MODEL_ID
    return f'{model.system}:{model.model_name}'
