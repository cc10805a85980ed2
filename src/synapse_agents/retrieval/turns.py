"""A configured agent's `rag_sources`: a `Retrieval` over them on its turn's own run.

`install()` registers an extender of the runs (`_agent_runs`): inside a Synapse turn whose agent has
retrieval sources (`InTurn.rag_sources`, from the configured agent's row), the turn's own run (its
run id) gets a `RetrievalCapability` over those sources, for that run only, unless it already has
one. Nested runs (an agent a tool runs, a summary call) are not given it, and the agent is never
changed.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent

from .._agent_runs import extend
from ..store.in_turn import in_turn
from .capability import RetrievalCapability, has_retrieval


def install() -> None:
    """Add `Retrieval` to the runs of turns whose agent names retrieval sources (once per process)."""
    extend(_with_retrieval)


def _with_retrieval(agent: Agent[Any, Any], options: dict[str, Any]) -> None:
    turn = in_turn()
    if turn is None or not turn.rag_sources or turn.run_id is None or options.get('run_id') != turn.run_id:
        return
    if has_retrieval(agent, options):
        return
    added = RetrievalCapability(sources=turn.rag_sources, store=turn.store, settings=turn.settings)
    options['capabilities'] = [*(options.get('capabilities') or ()), added]
