"""Degraded features: what discovery cannot do with the installed pydantic-ai, and why.

Discovery reads a few private pydantic-ai names and wraps two pydantic-ai functions (see
`_pydantic_ai_internals`). When one of those names is missing (pydantic-ai renamed or removed it),
only the feature that needs it is turned off; it is recorded here once, logged once, and reported
by `synapse agents` (table and `--json`) and by whoever calls `degraded_features()`.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import asdict, dataclass

logger = logging.getLogger('synapse_agents.discovery')

_lock = threading.Lock()
_recorded: dict[str, DegradedFeature] = {}


@dataclass(frozen=True)
class DegradedFeature:
    """One discovery feature turned off because a pydantic-ai name it needs is missing."""

    feature: str
    """Short name of the feature, e.g. 'retry budgets'."""
    lost: str
    """What a user no longer sees or gets."""
    missing: str
    """The pydantic-ai name that is missing, e.g. 'pydantic_ai.Agent._max_tool_retries'."""
    pydantic_ai_version: str

    def as_dict(self) -> dict[str, str]:
        """JSON-ready form: `{"feature", "lost", "missing", "pydantic_ai_version"}`."""
        return asdict(self)

    def sentence(self) -> str:
        """One line for logs and the terminal."""
        return (
            f'{self.feature} unavailable: {self.lost} '
            f'({self.missing} is missing in pydantic-ai {self.pydantic_ai_version})'
        )


def record(feature: DegradedFeature) -> None:
    """Add a degraded feature (once per missing name) and log it the first time."""
    with _lock:
        if feature.missing in _recorded:
            return
        _recorded[feature.missing] = feature
    logger.warning('Discovery: %s', feature.sentence())


def recorded() -> list[DegradedFeature]:
    """The degraded features recorded so far, in the order they were found."""
    with _lock:
        return list(_recorded.values())


def clear() -> None:
    """Forget every recorded feature (the checks that recorded them must be reset with it)."""
    with _lock:
        _recorded.clear()
