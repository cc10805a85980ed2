"""Workflow runs as stored: accepted, claimed, each step as it starts and ends, finished (blocking).

A run is `running` from the moment it is accepted until it ends `completed` or `failed`. While it
runs it changes (its current step, its steps' rows, its totals); once finished it never changes
again: every write to a run is a conditional update on `status = 'running'`, and one that finds
the run finished is refused with `WorkflowConflict` (a PATCH after the end is a 409). A worker
claims a run with a conditional update too, so two workers cannot both run it. A run whose task
ended without it (a worker that died, failed by the task sweep) is failed by `reconcile`.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from sqlalchemy import select, update

from ..errors import WorkflowConflict, WorkflowInvalid, WorkflowRunNotFound
from ..store import Store
from ..store.ids import is_valid_id, shown_id
from ..store.schema import utcnow
from ..tasks.tables import FINAL as TASK_FINAL
from ..tasks.tables import AgentTask
from .book import WorkflowView
from .tables import FINISHED, WorkflowRun, WorkflowRunStep

MAX_INPUT_CHARS = 1_000_000


def create_run(store: Store, workflow: WorkflowView, input_value: Any) -> WorkflowRun:
    """A new run of `workflow` at the version given, `running`, no step started yet."""
    if len(json.dumps(input_value, default=str)) > MAX_INPUT_CHARS:
        raise WorkflowInvalid([('input', f'at most {MAX_INPUT_CHARS:,} characters of JSON')])
    now = utcnow()
    run = WorkflowRun(
        workflow_id=workflow.id,
        workflow_key=workflow.key,
        workflow_version=workflow.version,
        is_sandbox=workflow.is_sandbox,
        status='running',
        current_step_index=-1,
        step_count=len(workflow.definition.get('steps', [])),
        input=input_value,
        total_tokens=0,
        created_at=now,
        started_at=now,
    )
    with store.write() as session:
        session.add(run)
        session.flush()
        session.expunge(run)
    return run


def get_run(store: Store, run_id: str) -> WorkflowRun:
    if not is_valid_id(run_id):
        raise WorkflowRunNotFound(f'No workflow run {shown_id(run_id)}.')
    with store.read() as session:
        run = session.get(WorkflowRun, run_id)
        if run is None:
            raise WorkflowRunNotFound(f'No workflow run {shown_id(run_id)}.')
        session.expunge(run)
    return run


def steps(store: Store, run_id: str) -> list[WorkflowRunStep]:
    """The run's steps that started, in order."""
    with store.read() as session:
        rows = list(
            session.scalars(
                select(WorkflowRunStep)
                .where(WorkflowRunStep.run_id == run_id)
                .order_by(WorkflowRunStep.position)
            )
        )
        session.expunge_all()
    return rows


def listed(
    store: Store,
    *,
    workflow_key: str | None = None,
    status: str | None = None,
    sandbox: str = 'exclude',
    limit: int = 50,
) -> list[WorkflowRun]:
    """Runs, newest first, filtered by workflow key and status; sandbox runs as `sandbox` says."""
    query = select(WorkflowRun).order_by(WorkflowRun.id.desc()).limit(limit)
    if workflow_key is not None:
        query = query.where(WorkflowRun.workflow_key == workflow_key)
    if status is not None:
        query = query.where(WorkflowRun.status == status)
    if sandbox == 'exclude':
        query = query.where(WorkflowRun.is_sandbox.is_(False))
    elif sandbox == 'only':
        query = query.where(WorkflowRun.is_sandbox.is_(True))
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
    return rows


def update_running(store: Store, run_id: str, **values: Any) -> WorkflowRun:
    """Change a running run; `WorkflowConflict` when it has finished (it is immutable then)."""
    with store.write() as session:
        changed = session.execute(
            update(WorkflowRun)
            .where(WorkflowRun.id == run_id, WorkflowRun.status == 'running')
            .values(**values)
        )
    if not changed.rowcount:  # type: ignore[attr-defined]
        run = get_run(store, run_id)
        raise WorkflowConflict(f'Workflow run {run_id} has finished ({run.status}): it can no longer change.')
    return get_run(store, run_id)


def check_running(store: Store, run_id: str) -> WorkflowRun:
    """The run, when it is still running; `WorkflowConflict` once it has finished."""
    run = get_run(store, run_id)
    if run.status in FINISHED:
        raise WorkflowConflict(f'Workflow run {run_id} has finished ({run.status}): it can no longer change.')
    return run


def set_task(store: Store, run_id: str, task_id: str) -> None:
    update_running(store, run_id, task_id=task_id)


def claim(store: Store, run_id: str) -> bool:
    """Take the run for this worker; False when it is taken, or finished."""
    with store.write() as session:
        claimed = session.execute(
            update(WorkflowRun)
            .where(
                WorkflowRun.id == run_id, WorkflowRun.status == 'running', WorkflowRun.claimed_at.is_(None)
            )
            .values(claimed_at=utcnow())
        )
    return bool(claimed.rowcount)  # type: ignore[attr-defined]


def step_started(store: Store, run_id: str, position: int, name: str, agent: str) -> str:
    """Record that step `position` starts (and make it the run's current step); the step row's id."""
    update_running(store, run_id, current_step_index=position)
    row = WorkflowRunStep(
        run_id=run_id, position=position, name=name, agent=agent, status='running', total_tokens=0
    )
    with store.write() as session:
        session.add(row)
        session.flush()
        return row.id


def step_ended(store: Store, step_id: str, **values: Any) -> None:
    """Record how a step ended: `status`, `conversation_id`, `message`, `output`, `error`, totals."""
    with store.write() as session:
        session.execute(
            update(WorkflowRunStep)
            .where(WorkflowRunStep.id == step_id)
            .values(completed_at=utcnow(), **values)
        )


def finish(
    store: Store, run_id: str, *, output: Any = None, error: str | None = None, failed_step: str | None = None
) -> WorkflowRun:
    """End a running run, `failed` with `error` or else `completed` with `output`, its totals summed
    from its steps. A run that already finished is left as it is (and returned)."""
    rows = steps(store, run_id)
    costs = [row.cost for row in rows if row.cost is not None]
    moment = utcnow()
    run = get_run(store, run_id)
    with store.write() as session:
        session.execute(
            update(WorkflowRun)
            .where(WorkflowRun.id == run_id, WorkflowRun.status == 'running')
            .values(
                status='failed' if error else 'completed',
                output=None if error else output,
                error=error,
                failed_step=failed_step,
                total_tokens=sum(row.total_tokens for row in rows),
                cost=sum(costs, Decimal(0)) if len(costs) == len(rows) else None,
                duration_ms=round((moment - run.started_at).total_seconds() * 1000),
                completed_at=moment,
            )
        )
    return get_run(store, run_id)


def reconcile(store: Store, run_id: str | None = None) -> list[str]:
    """Fail the running runs whose task has ended (a worker that died, failed by the task sweep, or
    a task cancelled): each run's error says what its task said, and the step it was running fails
    with it (named as the run's failed step). The ids of the runs failed."""
    query = (
        select(WorkflowRun.id, AgentTask.status, AgentTask.error)
        .join(AgentTask, AgentTask.id == WorkflowRun.task_id)
        .where(WorkflowRun.status == 'running', AgentTask.status.in_(TASK_FINAL))
    )
    if run_id is not None:
        query = query.where(WorkflowRun.id == run_id)
    with store.read() as session:
        ended = list(session.execute(query).all())
    failed: list[str] = []
    for found, task_status, task_error in ended:
        said = f'The run stopped when its task ended ({task_status}): {task_error or "no error given"}'
        in_flight = [step for step in steps(store, found) if step.status == 'running']
        run = finish(store, found, error=said, failed_step=in_flight[-1].name if in_flight else None)
        if run.status == 'failed' and run.error == said:
            for step in in_flight:  # the step its worker was running when it stopped
                step_ended(store, step.id, status='failed', error=said)
            failed.append(found)
    return failed
