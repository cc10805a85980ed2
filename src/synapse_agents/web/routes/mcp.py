"""`POST /api/agents/{slug}/mcp/{index}/connect`: connect to one of an agent's MCP servers, on request.

Discovery and `GET /api/agents/{slug}` never connect to an MCP server; the info panel's "Connect"
does, through this route: it connects to the server the agent's `index`-th MCP toolset names (the
`index` of its entry in `AgentInfo.toolsets`), lists the server's tools, and disconnects
(`discovery/mcp_servers.py`). A stdio server is a process started for the occasion and stopped
afterwards, unless a chat turn of the agent is using it meanwhile.

Answers: 200 with the tools; 404 for an unknown slug or index; 409 when the toolset only connects
inside a run (its `auth` or `headers` come from the run context); 502 when the server cannot be
reached or fails (the exception's class in `exception`); 504 when connecting and listing take longer
than `CONNECT_SECONDS`.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field
from pydantic_ai.exceptions import UserError

from ...chat.service import find_agent
from ...discovery.mcp_servers import McpServer, McpToolInfo, list_server_tools, mcp_servers
from ...errors import AgentLookupError
from ...targets.target import TurnTarget
from ..context import SynapseContext, get_context
from ..errors import ApiError, error_responses

router = APIRouter(tags=['agents'])

Context = Annotated[SynapseContext, Depends(get_context)]

CONNECT_SECONDS = 5.0
"""How long connecting to the server and listing its tools may take."""


class McpServerTools(BaseModel):
    """The tools an agent's MCP server lists, read by connecting to it."""

    slug: str
    index: int
    label: str = Field(description="The toolset's label, e.g. \"MCPToolset 'files'\".")
    description: str | None = Field(
        description='How it is reached: a command line or a URL, without secrets.'
    )
    tools: list[McpToolInfo]
    connect_ms: int = Field(description='How long connecting and listing took.')


@router.post('/api/agents/{slug}/mcp/{index}/connect', responses=error_responses(404, 409, 502, 504))
async def connect_mcp_server(slug: str, index: int, context: Context) -> McpServerTools:
    """Connect to the agent's `index`-th MCP server, list its tools, disconnect."""
    server = await _server(context, slug, index)
    started = anyio.current_time()
    tools: list[McpToolInfo] | None = None
    with anyio.move_on_after(CONNECT_SECONDS):
        try:
            tools = await list_server_tools(server.toolset)
        except UserError as exc:
            raise ApiError(
                409, f'{server.label} cannot connect outside a run: {exc}', code='mcp_needs_run'
            ) from exc
        except Exception as exc:
            raise ApiError(
                502,
                f'{server.label} could not be reached: {_reason(exc)}',
                code='mcp_unreachable',
                exception=type(exc).__name__,
            ) from exc
    if tools is None:
        raise ApiError(
            504, f'{server.label} did not answer within {CONNECT_SECONDS:g} seconds.', code='timeout'
        )
    elapsed = round((anyio.current_time() - started) * 1000)
    return McpServerTools(
        slug=slug,
        index=index,
        label=server.label,
        description=server.description,
        tools=tools,
        connect_ms=elapsed,
    )


async def _server(context: SynapseContext, slug: str, index: int) -> McpServer:
    """The MCP server to connect to, or the 404 that says why there is none."""
    try:
        found = await find_agent(context, slug)
    except AgentLookupError as exc:
        raise ApiError(409, str(exc)) from exc
    if found is None:
        raise ApiError(404, f'No agent with slug {slug!r}.')
    target = TurnTarget.from_discovered(found)
    if target.setup_error is not None:
        raise ApiError(409, f'{target.name} cannot run: {target.setup_error}', code='agent_unavailable')
    if target.agent is None:
        raise ApiError(404, f'No agent with slug {slug!r}.')
    servers = mcp_servers(target.agent)
    if not 0 <= index < len(servers):
        count = f'{len(servers)} MCP server{"" if len(servers) == 1 else "s"}'
        raise ApiError(404, f'{slug} has {count}: no MCP server {index}.')
    return servers[index]


def _reason(exc: BaseException) -> str:
    """The innermost message of an exception (or of the first one a group holds)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f'{type(exc).__name__}: {text}' if text else type(exc).__name__
