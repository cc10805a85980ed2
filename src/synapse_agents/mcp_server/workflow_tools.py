"""The MCP server's workflow tools: list workflows, save a sandbox workflow, check a definition, run a
workflow and read its run.

As with agents, these change **sandbox** workflows only (a key a real workflow holds is refused). A
run asked for here runs in this process, like `synapse workflows run`, and the tool answers once it
has ended: each step is a conversation with origin `workflow`, with its ledger rows and its trace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError

from ..errors import SynapseError, WorkflowInvalid
from ..store.ids import is_valid_id, shown_id
from ..workflows import book, runs
from ..workflows.agents import checked
from ..workflows.execute import execute
from ..workflows.run_routes import WorkflowRunDetail, WorkflowRunOut, WorkflowStepOut

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime


def _refused(error: Exception) -> ToolError:
    """Every problem of an invalid definition, each with its place; else the error's message."""
    if isinstance(error, WorkflowInvalid):
        return ToolError('; '.join(f'{where}: {problem}' for where, problem in error.problems))
    return ToolError(str(error))


class WorkflowTools:
    """The workflow tools' work on one started Synapse runtime."""

    def __init__(self, runtime: SynapseRuntime) -> None:
        self.runtime = runtime

    async def list_workflows(self) -> dict[str, Any]:
        """The workflows (`workflows`) and the sandbox ones (`sandbox_workflows`), each with its key,
        name, version and step count."""
        rows = await anyio.to_thread.run_sync(book.listed, self.runtime.store, 'include')

        def shown(row: Any) -> dict[str, Any]:
            return {'key': row.key, 'name': row.name, 'version': row.version, 'steps': row.step_count}

        return {
            'workflows': [shown(row) for row in rows if not row.is_sandbox],
            'sandbox_workflows': [shown(row) for row in rows if row.is_sandbox],
        }

    async def validate(self, definition: dict[str, Any]) -> dict[str, Any]:
        """`{"valid": true, "steps": n}`, or a `ToolError` naming each step and path at fault."""
        try:
            checked_definition = await checked(self.runtime, definition)
        except SynapseError as exc:
            raise _refused(exc) from None
        return {'valid': True, 'steps': len(checked_definition.steps)}

    async def save_sandbox_workflow(
        self, key: str, definition: dict[str, Any], name: str = ''
    ) -> dict[str, Any]:
        """Create the sandbox workflow `key`, or change it (a new version) when it is one already."""
        await self.validate(definition)
        store = self.runtime.store

        def saved() -> tuple[book.WorkflowView, bool]:
            try:
                existing = book.read(store, key)
            except SynapseError:  # no such workflow: a new one
                return book.create(store, key, name or key, definition, is_sandbox=True), True
            if not existing.is_sandbox:
                raise ToolError(f'{key!r} is a real workflow: these tools change sandbox workflows only.')
            return book.change(store, key, name=name or None, definition=definition), False

        try:
            view, created = await anyio.to_thread.run_sync(saved)
        except SynapseError as exc:
            raise _refused(exc) from None
        return {'workflow': view.key, 'version': view.version, 'created': created}

    async def run(self, key: str, input_value: Any) -> dict[str, Any]:
        """Run the workflow's latest version here and answer the run, as inspect_workflow_run does."""
        store = self.runtime.store
        try:
            found = await anyio.to_thread.run_sync(book.read, store, key)
            await checked(self.runtime, found.definition)
            run = await anyio.to_thread.run_sync(runs.create_run, store, found, input_value)
        except SynapseError as exc:
            raise _refused(exc) from None
        await execute(self.runtime, run.id)
        return await self.inspect_run(run.id)

    async def inspect_run(self, run_id: str) -> dict[str, Any]:
        """A run with its steps: each step's agent, conversation, agent run (its trace), message,
        output or error, tokens, cost and duration."""
        if not is_valid_id(run_id):
            raise ToolError(f'{shown_id(run_id)} is not a workflow run id.')
        store = self.runtime.store
        try:
            run = await anyio.to_thread.run_sync(runs.get_run, store, run_id)
        except SynapseError as exc:
            raise _refused(exc) from None
        steps = await anyio.to_thread.run_sync(runs.steps, store, run_id)
        detail = WorkflowRunDetail(
            **WorkflowRunOut.of(run).model_dump(), steps=[WorkflowStepOut.of(row) for row in steps]
        )
        return detail.model_dump(mode='json')
