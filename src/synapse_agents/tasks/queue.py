"""The task queue in the database: enqueue, claim, heartbeat, finish, cancel, sweep, and read.

Every decision is a conditional UPDATE, so it holds with several servers and workers on one
database: a task is claimed by the worker whose `queued → running` update matched (never twice,
however often a broker delivers it), a heartbeat only touches a task its worker still runs, and the
sweep fails only tasks whose heartbeat is older than `task_stale_seconds`. Blocking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, insert, select, update

from ..store.ids import is_valid_id, new_id
from ..store.schema import utcnow
from ..traces.hooks import current_place
from .errors import TaskError, not_found
from .tables import FINAL, AgentLog, AgentTask, StandingAgent

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from ..store import Store

PAGE_SIZE = 50
MAX_DURATION_MS = 2**31 - 1
"""The longest duration `agent_tasks.duration_ms` holds (about 24.8 days)."""


def task_values(
    standing: StandingAgent,
    *,
    trigger: str,
    now: datetime,
    event: str | None = None,
    context: dict[str, Any] | None = None,
    tenant: tuple[str, str] | None = None,
    subject: tuple[str, str] | None = None,
    slot_at: datetime | None = None,
    not_before: datetime | None = None,
) -> dict[str, Any]:
    """The row of a new queued task of `standing` (an event's tenant and subject win over its own)."""
    tenant_type, tenant_id = tenant or (standing.tenant_type, standing.tenant_id)
    subject_type, subject_id = subject or (standing.subject_type, standing.subject_id)
    return {
        'id': new_id(),
        'standing_agent_id': standing.id,
        'agent_key': standing.agent_key,
        'instruction': standing.instruction,
        'trigger': trigger,
        'event': event,
        'context': context,
        'fires': 1,
        'slot_at': slot_at,
        'tenant_type': tenant_type,
        'tenant_id': tenant_id,
        'subject_type': subject_type,
        'subject_id': subject_id,
        'subject_key': f'{subject_type}:{subject_id}' if subject_type is not None else '',
        'status': 'queued',
        'not_before': not_before or now,
        'cancel_requested': False,
        'queued_at': now,
        'input_tokens': 0,
        'output_tokens': 0,
        'created_at': now,
        'trace_parent': _trace_parent(),
    }


def _trace_parent() -> dict[str, Any] | None:
    """The traced agent run the caller is inside (a tool that fires an event), as stored."""
    place = current_place()
    return place.as_json() if place is not None else None


JOB_PREFIX = 'job:'
"""The agent key of a task that runs a job (`register_task_jobs`) rather than an agent."""


def enqueue_job(
    store: Store,
    kind: str,
    context: dict[str, Any],
    *,
    tenant: tuple[str, str] | None = None,
    once_key: str = '',
    now: datetime | None = None,
) -> str | None:
    """Queue a run of the job `kind` with `context`; None when a task of that kind with the same
    non-empty `once_key` is already queued (it will see the same work)."""
    moment = now or utcnow()
    agent_key = f'{JOB_PREFIX}{kind}'
    with store.write() as session:
        if once_key:
            waiting = session.scalar(
                select(AgentTask.id)
                .where(
                    AgentTask.agent_key == agent_key,
                    AgentTask.subject_key == once_key,
                    AgentTask.status == 'queued',
                )
                .limit(1)
            )
            if waiting is not None:
                return None
        values = {
            'id': new_id(),
            'standing_agent_id': None,
            'agent_key': agent_key,
            'instruction': '',
            'trigger': 'event',
            'event': kind,
            'context': context,
            'fires': 1,
            'tenant_type': tenant[0] if tenant else None,
            'tenant_id': tenant[1] if tenant else None,
            'subject_key': once_key,
            'status': 'queued',
            'not_before': moment,
            'cancel_requested': False,
            'queued_at': moment,
            'input_tokens': 0,
            'output_tokens': 0,
            'created_at': moment,
            'trace_parent': None,
        }
        session.execute(insert(AgentTask).values(**values))
        return str(values['id'])


def enqueue_manual(store: Store, standing_id: str, *, now: datetime | None = None) -> str:
    """Queue a run of the standing agent now ("run now"; paused or not); 404 when it does not exist."""
    moment = now or utcnow()
    if not is_valid_id(standing_id):
        raise not_found('standing agent', standing_id)
    with store.write() as session:
        standing = session.get(StandingAgent, standing_id)
        if standing is None:
            raise not_found('standing agent', standing_id)
        values = task_values(standing, trigger='manual', now=moment)
        session.execute(insert(AgentTask).values(**values))
        return str(values['id'])


def claim(store: Store, task_id: str, worker: str, *, now: datetime | None = None) -> bool:
    """Take the queued task for `worker`: True for exactly one claimer, False when it is taken,
    finished, cancelled or not yet due."""
    moment = now or utcnow()
    with store.write() as session:
        result = session.execute(
            update(AgentTask)
            .where(AgentTask.id == task_id, AgentTask.status == 'queued', AgentTask.not_before <= moment)
            .values(status='running', worker=worker[:255], started_at=moment, heartbeat_at=moment)
        )
        return bool(getattr(result, 'rowcount', 0))


def claimable(store: Store, limit: int, *, now: datetime | None = None) -> list[str]:
    """Ids of queued tasks that are due, oldest first (a worker then `claim`s them one by one)."""
    moment = now or utcnow()
    with store.read() as session:
        query = (
            select(AgentTask.id)
            .where(AgentTask.status == 'queued', AgentTask.not_before <= moment)
            .order_by(AgentTask.not_before, AgentTask.id)
            .limit(limit)
        )
        return list(session.scalars(query))


def heartbeat(store: Store, task_id: str, worker: str, *, now: datetime | None = None) -> bool:
    """Say the task is alive; returns whether a cancel was asked for (True also when the task is no
    longer this worker's to run: it was swept or cancelled)."""
    moment = now or utcnow()
    with store.write() as session:
        result = session.execute(
            update(AgentTask)
            .where(AgentTask.id == task_id, AgentTask.status == 'running', AgentTask.worker == worker[:255])
            .values(heartbeat_at=moment)
            .returning(AgentTask.cancel_requested)
        )
        row = result.first()
        return row is None or bool(row[0])


@dataclass
class Outcome:
    """How a run ended."""

    status: str
    output: Any = None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost: Decimal | None = None
    conversation_id: str | None = None
    run_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def finish(store: Store, task_id: str, worker: str, outcome: Outcome, *, now: datetime | None = None) -> bool:
    """Record the end of a run this worker still holds (False: it was swept meanwhile)."""
    moment = now or utcnow()
    with store.write() as session:
        started = session.scalar(select(AgentTask.started_at).where(AgentTask.id == task_id))
        duration = (
            min(int((moment - started).total_seconds() * 1000), MAX_DURATION_MS)
            if started is not None
            else None
        )
        result = session.execute(
            update(AgentTask)
            .where(AgentTask.id == task_id, AgentTask.status == 'running', AgentTask.worker == worker[:255])
            .values(
                status=outcome.status,
                output=outcome.output,
                error=outcome.error,
                input_tokens=outcome.input_tokens,
                output_tokens=outcome.output_tokens,
                cost=outcome.cost,
                conversation_id=outcome.conversation_id,
                run_id=outcome.run_id,
                finished_at=moment,
                duration_ms=duration,
                heartbeat_at=moment,
            )
        )
        return bool(getattr(result, 'rowcount', 0))


def progress(store: Store, task_id: str, **values: Any) -> None:
    """Store what a running task has so far (its conversation, its run id)."""
    with store.write() as session:
        session.execute(
            update(AgentTask).where(AgentTask.id == task_id, AgentTask.status == 'running').values(**values)
        )


def cancel(store: Store, task_id: str, *, now: datetime | None = None) -> AgentTask:
    """Cancel a queued task at once; ask a running one's worker to stop it (its next heartbeat).
    A finished task is a 409."""
    moment = now or utcnow()
    if not is_valid_id(task_id):
        raise not_found('task', task_id)
    with store.write() as session:
        row = session.get(AgentTask, task_id, with_for_update=True)
        if row is None:
            raise not_found('task', task_id)
        if row.status in FINAL:
            raise TaskError(409, f'The task is already {row.status}: there is nothing to cancel.')
        if row.status == 'queued':
            row.status, row.finished_at, row.error = 'cancelled', moment, 'Cancelled before it started.'
        else:
            row.cancel_requested = True
        session.flush()
        session.expunge(row)
        return row


def sweep(store: Store, stale_seconds: float, *, now: datetime | None = None) -> list[str]:
    """Fail the running tasks whose worker stopped heart-beating; returns their ids."""
    moment = now or utcnow()
    cutoff = moment - timedelta(seconds=stale_seconds)
    found = select(AgentTask.id, AgentTask.worker, AgentTask.heartbeat_at).where(
        AgentTask.status == 'running', AgentTask.heartbeat_at < cutoff
    )
    with store.read() as session:  # most sweeps find nothing: they take no write lock
        stale = list(session.execute(found).all())
    if not stale:
        return []
    with store.write() as session:
        swept: list[str] = []
        for task_id, worker, beat in stale:
            message = (
                f'The worker {worker or "?"} stopped heart-beating: its last heartbeat was at '
                f'{beat:%Y-%m-%d %H:%M:%S} UTC, more than {stale_seconds:g} s before the sweep at '
                f'{moment:%H:%M:%S}. The worker was stopped or lost while running this task.'
            )
            result = session.execute(
                update(AgentTask)
                .where(
                    AgentTask.id == task_id, AgentTask.status == 'running', AgentTask.heartbeat_at < cutoff
                )
                .values(status='failed', error=message, finished_at=moment)
            )
            if getattr(result, 'rowcount', 0):
                swept.append(task_id)
                session.execute(
                    insert(AgentLog).values(**log_values(session.connection(), task_id, 'error', message))
                )
        return swept


def log_values(
    connection: Connection, task_id: str, kind: str, message: str, data: Any = None
) -> dict[str, Any]:
    """A log row appended after the task's last one."""
    last = connection.scalar(select(func.max(AgentLog.seq)).where(AgentLog.task_id == task_id))
    return {
        'id': new_id(),
        'task_id': task_id,
        'seq': (last or 0) + 1,
        'kind': kind,
        'message': message,
        'data': data,
        'created_at': utcnow(),
    }


def append_logs(store: Store, task_id: str, entries: Sequence[tuple[str, str, Any]]) -> None:
    """Append `(kind, message, data)` steps to the task's log, in order."""
    if not entries:
        return
    with store.write() as session:
        connection = session.connection()
        first = log_values(connection, task_id, 'notice', '')['seq']
        rows = [
            {
                'id': new_id(),
                'task_id': task_id,
                'seq': first + index,
                'kind': kind,
                'message': message,
                'data': data,
                'created_at': utcnow(),
            }
            for index, (kind, message, data) in enumerate(entries)
        ]
        connection.execute(insert(AgentLog), rows)


# -- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskFilters:
    """What `list_tasks` narrows to (all optional) and where its page starts."""

    status: Sequence[str] = ()
    standing_agent_id: str | None = None
    agent: str | None = None
    trigger: str | None = None
    tenant: str | None = None
    event: str | None = None
    before: str | None = None
    """The id of the last task of the previous page."""
    limit: int = PAGE_SIZE


def list_tasks(store: Store, filters: TaskFilters) -> list[AgentTask]:
    """Tasks, newest first, one page (one query)."""
    query = select(AgentTask).order_by(AgentTask.id.desc()).limit(filters.limit)
    if filters.status:
        query = query.where(AgentTask.status.in_(list(filters.status)))
    if filters.standing_agent_id:
        query = query.where(AgentTask.standing_agent_id == filters.standing_agent_id)
    if filters.agent:
        query = query.where(AgentTask.agent_key == filters.agent)
    if filters.trigger:
        query = query.where(AgentTask.trigger == filters.trigger)
    if filters.event:
        query = query.where(AgentTask.event == filters.event)
    if filters.tenant:
        kind, _colon, ident = filters.tenant.partition(':')
        query = query.where(AgentTask.tenant_type == kind)
        if ident:
            query = query.where(AgentTask.tenant_id == ident)
    if filters.before:
        query = query.where(AgentTask.id < filters.before)
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
        return rows


def get_task(store: Store, task_id: str) -> tuple[AgentTask, list[AgentLog]]:
    """The task and its log in order, or a 404."""
    if not is_valid_id(task_id):
        raise not_found('task', task_id)
    with store.read() as session:
        row = session.get(AgentTask, task_id)
        if row is None:
            raise not_found('task', task_id)
        logs = list(
            session.scalars(select(AgentLog).where(AgentLog.task_id == task_id).order_by(AgentLog.seq))
        )
        session.expunge_all()
        return row, logs


def recent_runs(store: Store, standing_ids: Sequence[str], per_agent: int = 5) -> dict[str, list[AgentTask]]:
    """The last `per_agent` tasks of each standing agent (one query)."""
    if not standing_ids:
        return {}
    ranked = (
        select(
            AgentTask.id,
            func.row_number()
            .over(partition_by=AgentTask.standing_agent_id, order_by=AgentTask.id.desc())
            .label('rank'),
        )
        .where(AgentTask.standing_agent_id.in_(list(standing_ids)))
        .subquery()
    )
    query = (
        select(AgentTask)
        .join(ranked, ranked.c.id == AgentTask.id)
        .where(ranked.c.rank <= per_agent)
        .order_by(AgentTask.id.desc())
    )
    found: dict[str, list[AgentTask]] = {key: [] for key in standing_ids}
    with store.read() as session:
        for row in session.scalars(query):
            found.setdefault(row.standing_agent_id or '', []).append(row)
        session.expunge_all()
    return found
