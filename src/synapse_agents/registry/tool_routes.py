"""`GET /api/registry/tools`: the tool registry, for the agent form's tool picker.

The tools are what the catalog's current scan found (`tools.py`); the scan runs in a
thread when something changed on disk, as for `GET /api/agents`.
"""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ..tools import tool_registry
from .route_helpers import Context

router = APIRouter(tags=['registry'])


class RegistryTool(BaseModel):
    """A tool a configured agent may name."""

    name: str
    tags: list[str] = Field(description='A configured agent selects every tool with a tag as `tag:<tag>`.')
    description: str | None = None
    module: str = Field(description='The module that defines it.')


class RegistryToolList(BaseModel):
    """`GET /api/registry/tools`."""

    tools: list[RegistryTool]


@router.get('/api/registry/tools')
async def list_tools(context: Context) -> RegistryToolList:
    """The `@synapse_agents.tool` functions and `FunctionToolset` tools of the discovery targets."""
    catalog = context.catalog
    if catalog is None:
        return RegistryToolList(tools=[])
    snapshot = catalog.fresh() or await run_in_threadpool(catalog.scan)
    return RegistryToolList(tools=[RegistryTool(**entry) for entry in tool_registry(snapshot)])
