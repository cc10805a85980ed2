"""Sub-agents follow the playground's model.

A playground turn that runs on another model than the agent's own (the demo model, or one chosen
in the selector) runs the agents its tools call on that model too, so an orchestrator whose
sub-agents name a paid provider still finishes a turn offline on the demo model. The followers are
the other discovered agents; each is switched with pydantic-ai's own `Agent.override(model=...)`,
which holds for the turn's task and what it starts, never for another turn. An agent opts out with
`metadata={'synapse.follow_model': False}`: it keeps its own model. The trace of the turn records
the model each nested run really used.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.agent import AbstractAgent
from pydantic_ai.models import Model

from ..discovery import _pydantic_ai_internals as internals

FOLLOW_KEY = 'synapse.follow_model'


def follows(agent: Any) -> bool:
    """Whether `agent` runs on the turn's model when it runs inside the turn (`synapse.follow_model`)."""
    if not isinstance(agent, Agent):
        return False
    metadata = internals.metadata(agent)
    return not (isinstance(metadata, dict) and metadata.get(FOLLOW_KEY) is False)


def followers(agents: Sequence[Any], target: AbstractAgent[Any, Any] | None) -> list[Agent[Any, Any]]:
    """The agents of `agents` other than `target` that follow the turn's model (each once)."""
    seen: set[int] = set()
    out: list[Agent[Any, Any]] = []
    for agent in agents:
        if agent is target or id(agent) in seen or not follows(agent):
            continue
        seen.add(id(agent))
        out.append(agent)
    return out


@contextmanager
def following(model: Model | None, agents: Sequence[Agent[Any, Any]]) -> Iterator[None]:
    """Run `agents` on `model` inside the block (nothing changes when `model` is None)."""
    if model is None or not agents:
        yield
        return
    with ExitStack() as stack:
        for agent in agents:
            stack.enter_context(agent.override(model=model))
        yield
