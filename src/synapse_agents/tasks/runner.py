"""Run one task: claim it, check the spending limits, run the agent's turn, log it, record the end.

A task is a conversation with nobody at the other end: its turn goes through the same turn engine
as a chat (`chat/engine.py`), with origin `task`, ledger module `task`, the task's tenant and
subject, and the standing agent as the actor, so its messages, tool calls, ledger rows and errors
are stored like a chat's and its conversation opens in the workbench. While it runs, a heartbeat
every `task_heartbeat_seconds` tells the sweep the worker is alive and picks up a cancel request.
Every worker (the in-process one, a Celery worker) runs tasks through `run_task`.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from .._json import jsonable
from .._words import plural
from ..accounting import limits
from ..accounting.limits import Subject
from ..accounting.spend import decimal_text
from ..chat.engine import TURN_REFUSALS
from ..chat.reader import TurnReader
from ..chat.request import TurnRequest
from ..conversations.repository import ConversationRepository
from ..corrupt import CorruptRow
from ..events import TurnStarted
from ..scope import Scope, scope_problem
from ..traces.sink import RunPlace
from . import queue
from .agents import target_for
from .decisions import task_decisions
from .queue import Outcome
from .steps import StepLog, TaskSteps, snippet
from .tables import AgentTask, unreadable_context

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

logger = logging.getLogger('synapse.tasks')

ACTOR_TYPE = 'standing_agent'
"""A task's actor: the standing agent that fired (`standing_agent:<id>`), or `task:manual`."""


def prompt_of(task: AgentTask) -> str:
    """What the agent is asked: the instruction, then why it runs (the event and its context)."""
    parts = [task.instruction.strip()]
    if task.trigger == 'event':
        parts.append(f'Event: {task.event}')
        if task.context:
            parts.append(
                'Context:\n' + json.dumps(task.context, indent=2, ensure_ascii=False, sort_keys=True)
            )
    elif task.trigger == 'schedule' and task.slot_at is not None:
        parts.append(f'Scheduled run for {task.slot_at:%Y-%m-%d %H:%M} UTC.')
    return '\n\n'.join(parts)


def scope_of(task: AgentTask) -> Scope:
    """The task's scope; `CorruptRow` naming it when its stored tenant or subject is not one Synapse
    would write (a type holding ':')."""
    if (problem := scope_problem(task)) is not None:
        raise CorruptRow('agent_tasks', task.id, problem)
    tenant = (task.tenant_type, task.tenant_id) if task.tenant_type and task.tenant_id else None
    subject = (task.subject_type, task.subject_id) if task.subject_type and task.subject_id else None
    actor = (ACTOR_TYPE, task.standing_agent_id) if task.standing_agent_id else ('task', 'manual')
    return Scope(tenant=tenant, actor=actor, subject=subject)


def limit_refusal(runtime: SynapseRuntime, task: AgentTask, preset: str | None) -> str | None:
    """Why the task may not start (a spending limit already reached: `limits.reached`, the limits
    and consumption each model call is decided on), or None."""
    scope = scope_of(task)
    subject = Subject(scope.label('tenant'), scope.label('actor'), task.agent_key, preset)
    try:
        full = limits.reached(runtime.store, subject, runtime.settings)
    except CorruptRow as exc:
        return f'{exc}. The task did not start and cost nothing.'
    if not full:
        return None
    limit, spent = full[0].limit, full[0].consumed
    return (
        f'Spending limit reached: the {limit.scope} {limit.scope_id} may spend '
        f'{decimal_text(limit.amount)} {limit.currency} per {limit.period.replace("_", " ")} and '
        f'has spent {decimal_text(spent)} {limit.currency}. The task did not start and cost nothing '
        f'(limit {limit.id}).'
    )


async def run_task(runtime: SynapseRuntime, task_id: str, worker: str) -> str | None:
    """Claim and run the task; its final status, or None when another worker had it (or it is not
    queued, or not yet due)."""
    store = runtime.store
    if not await anyio.to_thread.run_sync(lambda: queue.claim(store, task_id, worker)):
        return None
    task, _logs = await anyio.to_thread.run_sync(queue.get_task, store, task_id)
    log = StepLog(store, task_id)
    log.add(
        'started', f'Started on worker {worker} ({_why(task)}).', {'worker': worker, 'trigger': task.trigger}
    )
    await log.flush()
    started = time.perf_counter()
    try:
        outcome = await _run(runtime, task, worker, log)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            stopped = Outcome('failed', error=f'The worker {worker} stopped (shut down) while this task ran.')
            log.add('error', stopped.error or '')
            await log.flush()
            await anyio.to_thread.run_sync(lambda: queue.finish(store, task_id, worker, stopped))
        raise
    except Exception as exc:
        logger.exception('task %s failed before its run', task_id)
        outcome = Outcome('failed', error=f'{type(exc).__name__}: {exc}')
    if outcome.status == 'failed' and outcome.error:
        log.add('error', outcome.error)
    elif outcome.status == 'cancelled':
        log.add('notice', outcome.error or 'Cancelled.')
    elif outcome.status == 'awaiting':
        count = len(outcome.output.get('awaiting', [])) if isinstance(outcome.output, dict) else 0
        log.add('notice', f'Waiting for a decision on {plural(count, "tool call")}.', outcome.output)
    else:
        log.add('output', snippet(outcome.output), {'output': snippet(outcome.output, 20_000)})
    log.add('finished', f'{outcome.status.capitalize()} in {time.perf_counter() - started:.1f} s.')
    await log.flush()
    if not await anyio.to_thread.run_sync(lambda: queue.finish(store, task_id, worker, outcome)):
        # Swept (or otherwise taken from this worker) while it ran: the row's status stands.
        logger.warning("task %s ended on %s after it was no longer this worker's", task_id, worker)
        row, _ = await anyio.to_thread.run_sync(queue.get_task, store, task_id)
        return row.status
    return outcome.status


def _why(task: AgentTask) -> str:
    if task.trigger == 'event':
        folded = f', {task.fires} firings folded into one run' if task.fires > 1 else ''
        return f'event {task.event}{folded}'
    if task.trigger == 'schedule':
        return f'schedule slot {task.slot_at:%Y-%m-%d %H:%M} UTC' if task.slot_at else 'schedule'
    return 'run now'


async def _run(runtime: SynapseRuntime, task: AgentTask, worker: str, log: StepLog) -> Outcome:
    if task.agent_key.startswith(queue.JOB_PREFIX):
        return await _run_job(runtime, task)
    store = runtime.store
    try:  # a row edited by hand: fail it, the worker runs the next
        if (damaged := unreadable_context(task)) is not None:
            raise damaged
        scope_of(task)
    except CorruptRow as exc:
        logger.error('task %s cannot run: %s', task.id, exc)
        return Outcome('failed', error=f'{exc}. The task did not start and cost nothing.')
    target = await target_for(runtime, task.agent_key)
    refusal = await anyio.to_thread.run_sync(limit_refusal, runtime, task, target.preset)
    if refusal is not None:
        return Outcome('failed', error=refusal)
    engine = runtime.chat_service().engine
    decisions = task_decisions(task)
    request = TurnRequest(
        target,
        prompt_of(task) if decisions is None else '',
        origin='task',
        module='task',
        scope=scope_of(task),
        capabilities=(TaskSteps(log),),
        trace_parent=RunPlace.from_json(task.trace_parent),
        conversation_id=task.conversation_id if decisions is not None else None,
        decisions=decisions,
    )
    try:
        prepared = await engine.prepare(request)
    except TURN_REFUSALS as exc:
        return Outcome('failed', error=str(exc))
    reader = TurnReader()
    cancelled = False
    async with anyio.create_task_group() as group:
        run_scope = anyio.CancelScope()

        async def beat() -> None:
            nonlocal cancelled
            interval = runtime.settings.task_heartbeat_seconds
            while True:
                await anyio.sleep(interval)
                stop = await anyio.to_thread.run_sync(lambda: queue.heartbeat(store, task.id, worker))
                await log.flush()
                if stop:
                    cancelled = True
                    run_scope.cancel()
                    return

        group.start_soon(beat)
        with run_scope:
            async with aclosing(engine.stream(prepared)) as stream:
                async for event in stream:
                    if reader.read(event):
                        log.event(event)
                    elif isinstance(event, TurnStarted):
                        await anyio.to_thread.run_sync(
                            functools.partial(
                                queue.progress,
                                store,
                                task.id,
                                conversation_id=event.conversation_id,
                                run_id=event.run_id,
                            )
                        )
                        log.add(
                            'notice',
                            f'Conversation {event.conversation_id}, model {event.model or "default"}.',
                        )
                    await log.flush()  # each step as it happens: the task's log is live
        group.cancel_scope.cancel()
    finished, failure = reader.finished, reader.failure
    if finished is None and reader.started is not None:
        return await _interrupted(runtime, reader.started, cancelled)
    usage = finished.usage if finished is not None else None
    common: dict[str, Any] = {
        'input_tokens': usage.input_tokens if usage else 0,
        'output_tokens': usage.output_tokens if usage else 0,
        'cost': finished.cost if finished is not None else None,
        'conversation_id': finished.conversation_id if finished is not None else None,
        'run_id': finished.run_id if finished is not None else None,
    }
    if cancelled:
        return Outcome(
            'cancelled', error='Cancelled while running: the turn was stored as interrupted.', **common
        )
    if failure is not None:
        return Outcome('failed', error=f'{failure.exception_class}: {failure.message}', **common)
    if finished is not None and finished.status == 'complete' and finished.awaiting:
        return Outcome('awaiting', output={'awaiting': finished.awaiting}, **common)
    if finished is None or finished.status != 'complete':
        status = finished.status if finished is not None else 'unknown'
        return Outcome('failed', error=f'The run ended without an answer (status {status}).', **common)
    return Outcome('succeeded', output=jsonable(reader.output), **common)


async def _run_job(runtime: SynapseRuntime, task: AgentTask) -> Outcome:
    """Run a job task (`register_task_jobs`): the registered function, given the task's context."""
    kind = task.agent_key.removeprefix(queue.JOB_PREFIX)
    jobs: dict[str, Any] = {}
    for found in runtime.plugins.hook.register_task_jobs():
        jobs.update(found)
    job = jobs.get(kind)
    if job is None:
        return Outcome(
            'failed', error=f'No job of kind {kind!r} is registered (a plugin that is not loaded?).'
        )
    context = task.context if isinstance(task.context, dict) else {}
    output = await job(runtime, context)
    return Outcome('succeeded', output=jsonable(output))


async def _interrupted(runtime: SynapseRuntime, started: TurnStarted, cancelled: bool) -> Outcome:
    """The outcome of a run that ended without its final event: what its conversation recorded."""
    await runtime.chat_service().writes.drain()  # the turn's queued writes first
    row = await anyio.to_thread.run_sync(ConversationRepository(runtime.store).get, started.conversation_id)
    reason = 'Cancelled while running' if cancelled else 'The run was interrupted'
    return Outcome(
        'cancelled' if cancelled else 'failed',
        error=f'{reason}: the turn was stored as interrupted.',
        input_tokens=row.input_tokens if row is not None else 0,
        output_tokens=row.output_tokens if row is not None else 0,
        cost=row.cost if row is not None else None,
        conversation_id=started.conversation_id,
        run_id=started.run_id,
    )
