"""`GET /api/agents` (cards and discovery problems) and `GET /api/agents/{slug}` (the full AgentInfo).

Both use the catalog's snapshot at once when nothing changed on disk (`Catalog.fresh`: a few `stat`
calls); otherwise they scan in a worker thread, since a scan may import modules, which blocks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from ...discovery import AgentInfo, AgentList, CatalogSnapshot
from ..context import SynapseContext, get_context
from ..errors import ApiError

router = APIRouter(tags=['agents'])

Context = Annotated[SynapseContext, Depends(get_context)]


async def _snapshot(context: SynapseContext) -> CatalogSnapshot | None:
    if context.catalog is None:
        return None
    fresh = context.catalog.fresh()
    if fresh is not None:
        return fresh
    return await run_in_threadpool(context.catalog.scan)


@router.get('/api/agents')
async def list_agents(context: Context) -> AgentList:
    """Every discovered agent as a card, plus what could not be loaded and where discovery looked."""
    snapshot = await _snapshot(context)
    if snapshot is None:
        return AgentList(agents=[], problems=[], targets=[], project_root=str(_root(context)))
    return snapshot.listing()


@router.get('/api/agents/{slug}')
async def get_agent(slug: str, context: Context) -> AgentInfo:
    """Everything the agent sends to its model: instructions, tools, toolsets, output schema, settings."""
    snapshot = await _snapshot(context)
    found = snapshot.get(slug) if snapshot is not None else None
    if found is None:
        raise ApiError(404, f'No agent with slug {slug!r}.')
    return found.info


def _root(context: SynapseContext) -> Path:
    return context.loaded.project_root
