"""Running a workflow: each step a turn of the turn engine, one after another, on the task queue.

A run is a task-queue job (`workflows.run`), on the in-process worker or Celery alike. The worker
claims the run, then runs its steps in order: each step's message is made from its input mapping
(`definition.message_of`), and sent in a new conversation with origin `workflow` whose turn carries
the workflow run's id (`workflow_run_id`, and as its parent run: ledger rows and the trace of each
step say which run they belong to; a step is a root of the trace list at depth 1). The engine
records it as any other turn, held to the spending limits that apply. A step's output joins the
run's document (`{"input": ..., "steps": {NAME: {"output": ...}}}`) for the steps after it; the
run's output is its `outputs` resolved on that document (without `outputs`, each step's output
under its `output_key`). A step that fails fails the run, naming the step; a run changed to failed
meanwhile (a PATCH) stops before its next step.
"""

from __future__ import annotations

import functools
import time
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from ..errors import WorkflowConflict
from ..runtime.conversation import AppConversation, TurnSettings
from ..scope import Scope
from ..tasks import queue
from ..tasks.service import task_service
from ..traces.sink import RunPlace
from . import runs
from .agents import resolve
from .book import read
from .definition import Definition, PathMissing, Step, message_of, output_of, parse
from .definition import resolve as resolve_paths
from .tables import WorkflowRun

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

KIND = 'workflows.run'
"""The task-queue job that runs a workflow (`job:workflows.run`)."""
MODULE = 'workflow'
"""The ledger module of the steps' model requests."""


def _said(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    text = str(error).splitlines()[0] if str(error) else ''
    return f'{type(error).__name__}: {text}' if text else type(error).__name__


async def _step(
    runtime: SynapseRuntime, run: WorkflowRun, position: int, step: Step, document: dict[str, Any]
) -> str | None:
    """Run one step; None when it completed (its output now in `document`), else its error."""
    store = runtime.store
    step_id = await anyio.to_thread.run_sync(
        lambda: runs.step_started(store, run.id, position, step.name, step.agent)
    )
    started = time.perf_counter()
    conversation: AppConversation | None = None
    message: str | None = None
    try:
        message = message_of(step, document)
        target = await resolve(runtime, step.agent)
        settings = TurnSettings(
            origin='workflow',
            module=MODULE,
            parent_run_id=run.id,
            trace_parent=RunPlace(run_id=run.id, root_run_id=run.id, depth=0, recorded=False),
            workflow_run_id=run.id,
        )
        conversation = AppConversation(runtime.chat_service().engine, target, Scope(), settings)
        reply = await conversation.send(message)
        if reply.awaiting:
            raise RuntimeError(
                'the run paused for tool calls that need a person; a workflow step cannot wait'
            )
    except Exception as exc:  # the mapping, the agent or the turn failed: the step fails
        error = _said(exc)
        await anyio.to_thread.run_sync(
            lambda: runs.step_ended(
                store,
                step_id,
                status='failed',
                conversation_id=conversation.id if conversation is not None else None,
                message=message,
                error=error,
                duration_ms=round((time.perf_counter() - started) * 1000),
            )
        )
        return error
    output = output_of(reply.output)
    document['steps'][step.name] = {'output': output}
    await anyio.to_thread.run_sync(
        lambda: runs.step_ended(
            store,
            step_id,
            status='completed',
            conversation_id=reply.conversation_id,
            agent_run_id=reply.run_id,
            message=message,
            output=output,
            total_tokens=reply.usage.input_tokens + reply.usage.output_tokens,
            cost=reply.cost,
            duration_ms=reply.duration_ms,
        )
    )
    return None


def _outputs(definition: Definition, document: dict[str, Any]) -> Any:
    if definition.outputs:
        return resolve_paths(definition.outputs, document, 'outputs')
    return {step.output_key: document['steps'][step.name]['output'] for step in definition.steps}


async def _end(store: Any, run_id: str, **how: Any) -> WorkflowRun:
    return await anyio.to_thread.run_sync(functools.partial(runs.finish, store, run_id, **how))


async def execute(runtime: SynapseRuntime, run_id: str) -> WorkflowRun:
    """Run `run_id` to its end (see the module); the run as it ended. A run another worker took, or
    one that finished, is left as it is."""
    store = runtime.store
    if not await anyio.to_thread.run_sync(runs.claim, store, run_id):
        return await anyio.to_thread.run_sync(runs.get_run, store, run_id)
    run = await anyio.to_thread.run_sync(runs.get_run, store, run_id)
    try:
        view = await anyio.to_thread.run_sync(read, store, run.workflow_key, run.workflow_version)
        if view.id != run.workflow_id:
            raise LookupError(f'workflow {run.workflow_key!r} was deleted')
        definition = parse(view.definition)
    except Exception as exc:  # the definition is gone: the run fails, saying why
        return await _end(store, run_id, error=_said(exc))
    document: dict[str, Any] = {'input': run.input, 'steps': {}}
    count = len(definition.steps)
    for position, step in enumerate(definition.steps):
        try:
            error = await _step(runtime, run, position, step, document)
        except WorkflowConflict:  # the run was finished meanwhile (failed by hand): stop here
            return await anyio.to_thread.run_sync(runs.get_run, store, run_id)
        if error is not None:
            said = f'Step {step.name!r} ({position + 1} of {count}) failed: {error}'
            return await _end(store, run_id, error=said, failed_step=step.name)
    try:
        output = _outputs(definition, document)
    except PathMissing as exc:
        return await _end(store, run_id, error=f'The outputs could not be read: {exc}')
    return await _end(store, run_id, output=output)


async def run_job(runtime: Any, context: dict[str, Any]) -> dict[str, Any]:
    """The task's work: run the workflow run its context names."""
    run_id = context.get('run_id')
    if not isinstance(run_id, str):
        raise ValueError('a workflow task needs a run_id in its context')
    try:
        run = await execute(runtime, run_id)
    except BaseException as exc:  # never a run left running: it fails with what stopped it
        said = _said(exc) if isinstance(exc, Exception) else 'the worker stopped while it ran'
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(lambda: runs.finish(runtime.store, run_id, error=said))
        raise
    return {'run_id': run.id, 'status': run.status, 'error': run.error}


def queue_run(runtime: Any, run_id: str) -> str | None:
    """Put the run on the task queue and tell the workers (blocking); the task id."""
    task_id = queue.enqueue_job(runtime.store, KIND, {'run_id': run_id}, once_key=run_id)
    if task_id is not None:
        runs.set_task(runtime.store, run_id, task_id)
        task_service(runtime).dispatcher.queued([task_id])
    return task_id
