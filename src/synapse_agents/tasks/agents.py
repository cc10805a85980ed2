"""Which agent a standing agent runs: a code agent's slug or a configured agent (`config:<key>`).

`check_agent` refuses an unknown agent with the closest known slugs before anything is stored;
`target_for` gives the turn engine its target when a task starts (a configured agent that cannot
run, such as a disabled one, raises its own error then, and the task fails with it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..chat.service import lookup_target
from ..errors import AgentLookupError, UnknownAgent
from ..targets.target import TurnTarget
from .errors import TaskError, field_error

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime


async def target_for(runtime: SynapseRuntime, key: str) -> TurnTarget:
    """The turn target of `key` (the one agent lookup: `chat/service.py`); `UnknownAgent` when
    nothing has that slug or key."""
    return await lookup_target(runtime, key)


async def check_agent(runtime: SynapseRuntime, key: str, field: str = 'agent') -> None:
    """A 422 naming `field` when `key` is no agent this Synapse knows."""
    try:
        await target_for(runtime, key)
    except UnknownAgent as exc:
        raise field_error(field, f'{field}: {exc}') from None
    except AgentLookupError as exc:
        raise TaskError(503, f'{field}: the agents could not be read ({exc}).') from None
    except Exception:
        return
