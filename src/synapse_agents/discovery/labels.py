"""What to call each agent so two of them never read the same.

Many projects name every agent `agent`, or two modules each define a `support`. An agent whose name
is unique is called by its name; agents that share one are called `name · module`, with the
shortest tail of the module path that tells them apart (`agent · weather`, `agent · bank.support`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Protocol


class _Named(Protocol):
    @property
    def slug(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def module(self) -> str: ...


def _tails(module: str) -> list[str]:
    parts = [part for part in module.replace('/', '.').split('.') if part]
    return ['.'.join(parts[-size:]) for size in range(1, len(parts) + 1)] or [module]


def labels(agents: Iterable[_Named]) -> dict[str, str]:
    """Each agent's label, by slug (see the module docstring)."""
    groups: dict[str, list[_Named]] = defaultdict(list)
    for agent in agents:
        groups[agent.name].append(agent)
    out: dict[str, str] = {}
    for name, group in groups.items():
        if len(group) == 1:
            out[group[0].slug] = name
            continue
        for agent in group:
            others = [other for other in group if other is not agent]
            chosen = next(
                (
                    tail
                    for tail in _tails(agent.module)
                    if not any(tail in _tails(other.module) for other in others)
                ),
                None,
            )
            if chosen is None:  # the same module (two attributes of one module): the slug tells them apart
                chosen = agent.slug.rsplit('.', 1)[-1]
            out[agent.slug] = f'{name} · {chosen}'
    return out
