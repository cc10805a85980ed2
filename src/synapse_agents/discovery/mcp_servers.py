"""An agent's toolsets as leaves, its MCP servers each once, and listing one server's tools on request.

`toolset_leaves(agent)` walks `agent.toolsets` (the toolsets capabilities contribute included) down
to the toolsets that hold tools, noting the capability that contributes each. A capability's toolset
comes wrapped in a pydantic-ai wrapper bound to that capability; the wrapper is not a toolset of its
own and is not listed. `mcp_servers(agent)` keeps the MCP ones, each object once: an MCP toolset
given in `toolsets=` and through a capability (`MCP(local=server)`) is one server.

`strip_mcp` empties the MCP toolsets of a copy of a toolset, for a run that must not connect (the
tools as the model sees them), and notes each one left out once.

Nothing here connects at discovery time. `list_server_tools(toolset)` does, when asked (the
dashboard's "Connect"): it enters the toolset, lists the server's tools, leaves, and stops the local
server process (FastMCP keeps stdio servers alive between sessions) unless a run of the agent is in
the toolset at that moment.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict, Field
from pydantic_ai import RunContext
from pydantic_ai.agent import AbstractAgent
from pydantic_ai.capabilities import AbstractCapability, NativeOrLocalTool
from pydantic_ai.native_tools import AbstractNativeTool
from pydantic_ai.toolsets import (
    AbstractToolset,
    CombinedToolset,
    DynamicToolset,
    FunctionToolset,
    WrapperToolset,
)

from ._describe import mcp_label, transport_description

CLOSE_SECONDS = 5.0
"""How long stopping a local server process may take once its tools are listed."""


@dataclass(frozen=True)
class ToolsetLeaf:
    """A toolset that holds tools (or talks to a server), as the agent has it."""

    toolset: AbstractToolset[Any]
    top: AbstractToolset[Any]
    """The toolset it was found under: the one given to the agent, or a capability's."""
    capability: AbstractCapability[Any] | None = None
    """The capability that contributes it, if one does."""


@dataclass(frozen=True)
class McpServer:
    """One MCP toolset of an agent, named without connecting."""

    toolset: AbstractToolset[Any]
    label: str
    description: str | None
    capability: AbstractCapability[Any] | None


def is_mcp(toolset: AbstractToolset[Any]) -> bool:
    """Whether a toolset talks to an MCP server (told from its class, nothing is connected)."""
    return any(
        cls.__module__ == 'pydantic_ai.mcp' or cls.__name__.startswith('MCP') for cls in type(toolset).__mro__
    )


def owning_capability(toolset: AbstractToolset[Any]) -> AbstractCapability[Any] | None:
    """The capability a wrapper binds its toolset to (pydantic-ai wraps each capability's toolset)."""
    capability = getattr(toolset, 'capability', None)
    if isinstance(toolset, WrapperToolset) and isinstance(capability, AbstractCapability):
        return capability
    return None


def toolset_leaves(agent: AbstractAgent[Any, Any]) -> list[ToolsetLeaf]:
    """Every leaf toolset of `agent`, in the order pydantic-ai combines them."""
    found: list[ToolsetLeaf] = []
    for top in agent.toolsets:
        found.extend(_leaves(top, None))
    return found


def _leaves(node: AbstractToolset[Any], capability: AbstractCapability[Any] | None) -> Iterator[ToolsetLeaf]:
    if isinstance(node, CombinedToolset):
        for child in node.toolsets:
            yield from _leaves(child, capability)
        return
    owner = owning_capability(node)
    if owner is not None:
        assert isinstance(node, WrapperToolset)
        yield from _leaves(node.wrapped, owner)
        return
    visited: list[AbstractToolset[Any]] = []
    node.apply(visited.append)
    for leaf in visited:
        if owning_capability(leaf) is None:  # a capability's wrapper deeper down: its leaves follow
            yield ToolsetLeaf(leaf, node, capability)


def mcp_servers(agent: AbstractAgent[Any, Any]) -> list[McpServer]:
    """The agent's MCP toolsets, each object once, in order (the `{index}` of the connect route)."""
    servers: list[McpServer] = []
    for leaf in toolset_leaves(agent):
        if not is_mcp(leaf.toolset):
            continue
        known = next((i for i, s in enumerate(servers) if s.toolset is leaf.toolset), None)
        if known is not None:
            if servers[known].capability is None and leaf.capability is not None:
                servers[known] = McpServer(
                    leaf.toolset, servers[known].label, servers[known].description, leaf.capability
                )
            continue
        transport = transport_description(leaf.toolset)
        servers.append(
            McpServer(leaf.toolset, mcp_label(leaf.toolset, transport), transport, leaf.capability)
        )
    return servers


def native_fallback_of(capability: AbstractCapability[Any] | None) -> str | None:
    """The native tool (its `unique_id`) a capability's local toolset stands in for, if it does.

    A `NativeOrLocalTool` capability (`WebSearch(local=...)`, `MCP(url, native=True)`) offers its local
    tools only to a model that lacks its native tool.
    """
    if isinstance(capability, NativeOrLocalTool) and isinstance(capability.native, AbstractNativeTool):
        return capability.native.unique_id
    return None


@dataclass
class SkippedServers:
    """The MCP toolsets left out, each once: by object (one given in `toolsets=` and through a
    capability is one), and by label for those a dynamic toolset builds anew every step."""

    seen: dict[int, str] = field(default_factory=dict)

    def add(self, toolset: AbstractToolset[Any], *, built: bool = False) -> None:
        label = mcp_label(toolset, transport_description(toolset))
        if id(toolset) not in self.seen and not (built and label in self.seen.values()):
            self.seen[id(toolset)] = label

    def labels(self) -> list[str]:
        """The labels, in the order the toolsets were met."""
        return list(self.seen.values())


def strip_mcp(
    toolset: AbstractToolset[Any], skipped: SkippedServers, *, built: bool = False
) -> AbstractToolset[Any]:
    """A copy of `toolset` with every MCP leaf emptied and every dynamic toolset guarded the same way."""

    def visit(leaf: AbstractToolset[Any]) -> AbstractToolset[Any]:
        if is_mcp(leaf):
            skipped.add(leaf, built=built)
            return FunctionToolset[Any]()
        if isinstance(leaf, DynamicToolset):
            return DynamicToolset(
                _guarded(leaf.toolset_func, skipped), per_run_step=leaf.per_run_step, id=leaf.id
            )
        return leaf

    return toolset.visit_and_replace(visit)


def _guarded(function: Any, skipped: SkippedServers) -> Any:
    """The toolset function of a dynamic toolset, its MCP toolsets emptied before they are entered."""

    @functools.wraps(function)
    async def build(ctx: RunContext[Any]) -> AbstractToolset[Any] | None:
        built = function(ctx)
        if inspect.isawaitable(built):
            built = await built
        if built is None:
            return None
        return strip_mcp(built, skipped, built=True)

    return build


class _Model(BaseModel):
    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True, validate_by_alias=True)


class McpToolInfo(_Model):
    """One tool an MCP server lists."""

    name: str
    description: str | None = None
    input_schema: dict[str, Any] = Field(description="The JSON schema of the tool's arguments.")


async def list_server_tools(toolset: AbstractToolset[Any]) -> list[McpToolInfo]:
    """Connect to the server of an MCP toolset, list its tools and disconnect (raises what connecting
    raises: pydantic-ai's `UserError` for a toolset that only connects inside a run)."""
    try:
        async with toolset:
            listed = await toolset.list_tools()  # type: ignore[attr-defined]
    finally:
        if not getattr(toolset, 'is_running', False):  # nobody else (a chat turn) is in it
            with anyio.move_on_after(CLOSE_SECONDS, shield=True):
                await _stop_local_process(toolset)
    return [_tool(tool) for tool in listed]


async def _stop_local_process(toolset: AbstractToolset[Any]) -> None:
    """Stop a server process FastMCP keeps alive between sessions (`keep_alive`, stdio transports)."""
    transport = getattr(getattr(toolset, 'client', None), 'transport', None)
    close = getattr(transport, 'close', None)
    if getattr(transport, 'keep_alive', False) and callable(close):
        await close()


def _tool(tool: Any) -> McpToolInfo:
    schema = getattr(tool, 'input_schema', None)
    return McpToolInfo(
        name=str(tool.name),
        description=getattr(tool, 'description', None),
        input_schema=dict(schema) if isinstance(schema, dict) else {'type': 'object'},
    )
