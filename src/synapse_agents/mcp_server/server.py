"""Synapse as an MCP server (the `mcp` SDK's `MCPServer`): the tools a coding assistant uses to build
and try agents in the sandbox, each a thin wrapper of `SandboxTools` with the description the
assistant reads.

`synapse_mcp(runtime)` builds the server; `run_stdio` serves it on standard input and output, and
`http_app` as streamable HTTP behind the dashboard's access rules (this machine only by default, a
token otherwise: `web/access.py`). Either way the runtime runs while the server does, so runs have
their engine, write queue and task workers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from .._version import __version__
from ..web.access import AccessMiddleware, AccessPolicy
from .tools import SandboxTools
from .workflow_tools import WorkflowTools

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

INSTRUCTIONS = (
    'Synapse runs pydantic-ai agents and records every turn. Build agents and presets in its sandbox '
    '(save_sandbox_agent, save_sandbox_preset), run them (run_agent), read what happened '
    '(inspect_conversation: messages, tool calls, tokens, cost, errors, trace); build JSON workflows '
    'of agent steps the same way (validate_workflow, save_sandbox_workflow, run_workflow, '
    'inspect_workflow_run); remove the sandbox when done (cleanup_sandbox). Real agents, presets and '
    'workflows are never changed by these tools.'
)


def synapse_mcp(runtime: SynapseRuntime) -> MCPServer[Any]:
    """The MCP server of `runtime` with its tools."""
    tools = SandboxTools(runtime)
    flows = WorkflowTools(runtime)
    server: MCPServer[Any] = MCPServer('synapse', version=__version__, instructions=INSTRUCTIONS)

    @server.tool()
    async def list_agents() -> dict[str, Any]:
        """The agents Synapse can run: code agents found in the project, configured agents, and the
        sandbox agents (each `agent` is the id run_agent takes)."""
        return await tools.list_agents()

    @server.tool()
    async def save_sandbox_agent(
        key: str,
        instructions: str = '',
        name: str = '',
        description: str = '',
        preset_key: str | None = None,
        tone_key: str | None = None,
        tool_names: list[str] | None = None,
        spec: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Create or change a sandbox configured agent (run it as `config:<key>`). `preset_key` names a
        preset (its model and settings), `tool_names` tool names or `tag:<tag>` entries of the tool
        registry, `spec` further pydantic-ai AgentSpec fields (output_schema, retries, ...). Each
        change is a new version. A key a real agent holds is refused."""
        fields: dict[str, Any] = {
            'instructions': instructions,
            'name': name,
            'description': description,
            'preset_key': preset_key,
            'tone_key': tone_key,
            'tools': tool_names or [],
            'spec': spec or {},
        }
        return await tools.save_sandbox_agent(key, fields)

    @server.tool()
    async def save_sandbox_preset(
        key: str,
        model: str,
        name: str = '',
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        timeout_s: float | None = None,
    ) -> dict[str, Any]:
        """Create or change a sandbox preset: a model id (`demo`, a registry model key or a pydantic-ai
        model string such as `openai:gpt-5-mini`) and its settings. A key a real preset holds is
        refused."""
        fields = {
            'model': model,
            'name': name,
            'temperature': temperature,
            'max_tokens': max_tokens,
            'top_p': top_p,
            'timeout_s': timeout_s,
        }
        return await tools.save_sandbox_preset(key, fields)

    @server.tool()
    async def run_agent(
        agent: str, message: str, model: str | None = None, conversation_id: str | None = None
    ) -> dict[str, Any]:
        """Send `message` to `agent` (a slug from list_agents) and wait for the answer: its output,
        the tool calls it made, tokens, cost, and the conversation id (pass it back to continue the
        conversation, or to inspect_conversation). `model` overrides the agent's model for this run."""
        return await tools.run_agent(agent, message, model, conversation_id)

    @server.tool()
    async def inspect_conversation(conversation_id: str) -> dict[str, Any]:
        """Everything a conversation recorded: each message with its tool calls, tokens, cost, duration
        and errors (class and traceback), and the trace of each turn (model calls, tool calls and the
        runs started inside them)."""
        return await tools.inspect_conversation(conversation_id)

    @server.tool()
    async def list_workflows() -> dict[str, Any]:
        """The JSON workflows: the real ones and the sandbox ones, each with its key, name, version and
        number of steps."""
        return await flows.list_workflows()

    @server.tool()
    async def validate_workflow(definition: dict[str, Any]) -> dict[str, Any]:
        """Check a workflow definition without saving it: `{"version": 1, "steps": [{"name",
        "agent_name", "input_mapping": {"message": "$.input.message"}, "output_key"}], "outputs":
        {"final": "$.steps.NAME.output.answer"}}`. A problem names the step and the path at fault."""
        return await flows.validate(definition)

    @server.tool()
    async def save_sandbox_workflow(key: str, definition: dict[str, Any], name: str = '') -> dict[str, Any]:
        """Create or change a sandbox workflow (checked first, as validate_workflow does); each change
        is a new version. A key a real workflow holds is refused."""
        return await flows.save_sandbox_workflow(key, definition, name)

    @server.tool()
    async def run_workflow(key: str, input: Any = None) -> dict[str, Any]:
        """Run a workflow's latest version with `input` and wait for it to end: its status, output or
        error (naming the failed step), tokens, cost, and each step with its conversation, trace,
        message and output."""
        return await flows.run(key, input)

    @server.tool()
    async def inspect_workflow_run(run_id: str) -> dict[str, Any]:
        """A workflow run with its steps: status, input, output, error, tokens, cost, duration, and for
        each step its agent, conversation, agent run (for its trace), message, output or error."""
        return await flows.inspect_run(run_id)

    @server.tool()
    async def cleanup_sandbox() -> dict[str, Any]:
        """Remove every sandbox workflow (with its runs), every sandbox agent and every sandbox preset no
        real agent uses, in one transaction; how many of each were removed."""
        return await tools.cleanup_sandbox()

    return server


async def run_stdio(runtime: SynapseRuntime) -> None:
    """Serve on standard input and output until the client closes them."""
    server = synapse_mcp(runtime)
    async with runtime.running():
        await server.run_stdio_async()


def http_app(runtime: SynapseRuntime, policy: AccessPolicy) -> ASGIApp:
    """The server as streamable HTTP at `/mcp`, behind `policy`, running `runtime` while it serves."""
    served = synapse_mcp(runtime).streamable_http_app()
    inner_lifespan = served.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with runtime.running(), inner_lifespan(app):
            yield

    served.router.lifespan_context = lifespan
    guarded = AccessMiddleware(served, policy)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await guarded(scope, receive, send)

    return app
