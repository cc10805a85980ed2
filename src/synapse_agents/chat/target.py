"""What the turn engine runs: an agent with the facts discovery found about it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_ai.agent import AbstractAgent
from pydantic_ai.models import Model

from .model_choice import DEMO_MODEL_ID


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

    @classmethod
    def from_discovered(cls, found: Any) -> TurnTarget:
        """From a `synapse_agents.discovery.DiscoveredAgent`."""
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
        )

    @classmethod
    def for_agent(
        cls, agent: AbstractAgent[Any, Any], *, slug: str | None = None, **kwargs: Any
    ) -> TurnTarget:
        """For an agent passed in directly; its own model id is read from the agent."""
        name = agent.name or 'agent'
        kwargs.setdefault('own_model_id', model_id_of(agent.model))
        return cls(agent=agent, slug=slug or name, name=name, **kwargs)


def model_id_of(model: Model | str | None) -> str | None:
    """A selector id for an agent's model setting."""
    if model is None:
        return None
    if isinstance(model, str):
        return model
    from ..demo import DemoModel

    if isinstance(model, DemoModel):
        return DEMO_MODEL_ID
    return f'{model.system}:{model.model_name}'
