"""`GET /api/agents` (cards and discovery problems) and `GET /api/agents/{slug}` (the full AgentInfo).

Both use the catalog's snapshot at once when nothing changed on disk (`Catalog.fresh`: a few `stat`
calls); otherwise they scan in a worker thread, since a scan may import modules, which blocks.
Configured agents (`config:<key>`, `registry/agents_runtime.py`) are read from the registry in a
thread: the listing shows the enabled ones that are not sandboxes, after the code agents; a slug
finds any of them, sandboxes included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from ...chat.service import find_agent
from ...discovery import AgentInfo, AgentList, CatalogSnapshot, DiscoveryProblem
from ...discovery.agent_info import AgentCard
from ...errors import AgentLookupError
from ...registry.agents_runtime import CONFIG_PREFIX, list_configured
from ..context import SynapseContext, get_context
from ..errors import ApiError, error_responses

router = APIRouter(tags=['agents'])

Context = Annotated[SynapseContext, Depends(get_context)]


async def _snapshot(context: SynapseContext) -> CatalogSnapshot | None:
    if context.catalog is None:
        return None
    fresh = context.catalog.fresh()
    if fresh is not None:
        return fresh
    return await run_in_threadpool(context.catalog.scan)


async def _configured(context: SynapseContext) -> tuple[list[AgentCard], list[DiscoveryProblem]]:
    """The configured agents' cards, or a problem saying why the registry could not be read."""
    try:
        agents = await list_configured(context.store, context.settings.secret_key, context.catalog)
    except Exception as exc:
        problem = DiscoveryProblem(
            kind='registry_error',
            target='registry',
            exception=type(exc).__name__,
            message=f'The configured agents could not be read: {exc}',
        )
        return [], [problem]
    return [agent.card for agent in agents], []


@router.get('/api/agents')
async def list_agents(context: Context) -> AgentList:
    """Every discovered agent as a card, then the configured agents, plus what could not be loaded
    and where discovery looked."""
    snapshot = await _snapshot(context)
    cards, problems = await _configured(context)
    if snapshot is None:
        return AgentList(agents=cards, problems=problems, targets=[], project_root=str(_root(context)))
    listing = snapshot.listing()
    return listing.model_copy(
        update={'agents': [*listing.agents, *cards], 'problems': [*listing.problems, *problems]}
    )


@router.get('/api/agents/{slug}', responses=error_responses(404, 409))
async def get_agent(slug: str, context: Context) -> AgentInfo:
    """Everything the agent sends to its model: instructions, tools, toolsets, output schema, settings."""
    if slug.startswith(CONFIG_PREFIX):
        try:
            configured = await find_agent(context, slug)
        except AgentLookupError as exc:
            raise ApiError(409, str(exc)) from exc
        if configured is None:
            raise ApiError(404, f'No agent with slug {slug!r}.')
        info: AgentInfo = configured.info
        return info
    snapshot = await _snapshot(context)
    found = snapshot.get(slug) if snapshot is not None else None
    if found is None:
        raise ApiError(404, f'No agent with slug {slug!r}.')
    assert snapshot is not None
    return found.info.model_copy(update={'label': snapshot.label(slug)})


def _root(context: SynapseContext) -> Path:
    return context.loaded.project_root
