"""Which agent a standing agent runs: a code agent's slug or a configured agent (`config:<key>`).

`check_agent` refuses an unknown agent with the closest known slugs before anything is stored;
`target_for` gives the turn engine its target when a task starts (a configured agent that cannot
run, such as a disabled one, raises its own error then, and the task fails with it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio.to_thread

from ..chat.service import AgentLookupError, find_agent
from ..runtime.synapse import UnknownAgent, unknown_slug_message
from ..targets.target import TurnTarget
from .errors import TaskError, field_error

if TYPE_CHECKING:
    from ..runtime.root import SynapseRuntime


async def target_for(runtime: SynapseRuntime, key: str) -> TurnTarget:
    """The turn target of `key`; `UnknownAgent` when nothing has that slug or key."""
    found = None
    if not key.startswith('config:') and runtime.catalog is not None:
        found = await find_agent(runtime.catalog, key)
    if found is None:
        configured = key if key.startswith('config:') else f'config:{key}'
        found = await find_agent(runtime, configured)
        if found is not None and found.setup_error is not None:
            raise found.setup_error
    if found is None:
        known: list[str] = []
        if runtime.catalog is not None:
            snapshot = await anyio.to_thread.run_sync(runtime.catalog.scan)
            known = [agent.slug for agent in snapshot.agents]
        raise UnknownAgent(unknown_slug_message(key, known))
    return TurnTarget.from_discovered(found)


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
