"""Tasks whose run paused on tool calls that need a person (approval, or a result from outside).

A task's run that ends with such calls ends `awaiting` (its conversation holds the waiting calls,
`conversations/decisions.py`); `decide` checks the answers against them, stores them on the task and queues
it again with one conditional UPDATE (`awaiting → queued`), so of two people deciding at once one
is told it was decided already. The worker that claims it next resumes the run with the answers
(`tasks/runner.py`), and the task ends as any run does, or waits again. Blocking.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import update

from ..conversations.decisions import awaiting_calls
from ..conversations.deferred import Decisions, check_answers, read_decisions, waiting_call
from ..errors import DecisionsInvalid
from ..store.ids import is_valid_id
from ..store.schema import utcnow
from .errors import TaskError, field_error, not_found
from .tables import AgentTask

if TYPE_CHECKING:
    from ..store import Store

AWAITING = 'awaiting'


def waiting_calls(store: Store, task: AgentTask) -> list[dict[str, Any]]:
    """The calls an `awaiting` task waits on, as JSON (none for any other task)."""
    if task.status != AWAITING or task.conversation_id is None:
        return []
    return [waiting_call(row).as_json() for row in awaiting_calls(store, task.conversation_id)]


def decide(
    store: Store, task_id: str, raw: str | Mapping[str, Any], *, now: datetime | None = None
) -> AgentTask:
    """Store the answers to an awaiting task's calls and queue it again; the task as queued.

    Raises `TaskError`: 404 for no such task, 409 when it is not awaiting (or was decided
    meanwhile), 422 for answers that do not match the calls that wait."""
    if not is_valid_id(task_id):
        raise not_found('task', task_id)
    try:
        decisions = read_decisions(raw)
    except DecisionsInvalid as exc:
        raise field_error('decisions', str(exc)) from exc
    with store.read() as session:
        task = session.get(AgentTask, task_id)
        if task is not None:
            session.expunge(task)
    if task is None:
        raise not_found('task', task_id)
    if task.status != AWAITING or task.conversation_id is None:
        raise TaskError(409, f'The task is {task.status}: no tool call of it waits for a decision.')
    waiting = [waiting_call(row) for row in awaiting_calls(store, task.conversation_id)]
    try:
        check_answers(decisions, waiting)
    except DecisionsInvalid as exc:
        raise field_error('decisions', str(exc)) from exc
    moment = now or utcnow()
    with store.write() as session:
        result = session.execute(
            update(AgentTask)
            .where(AgentTask.id == task_id, AgentTask.status == AWAITING)
            .values(
                status='queued',
                decisions=_stored(decisions),
                not_before=moment,
                worker=None,
                finished_at=None,
                error=None,
            )
        )
        if not getattr(result, 'rowcount', 0):
            raise TaskError(409, 'The task was decided meanwhile: it is no longer awaiting.')
        row = session.get(AgentTask, task_id)
        assert row is not None
        session.flush()
        session.expunge(row)
    return row


def task_decisions(task: AgentTask) -> Decisions | None:
    """The answers a queued task resumes its run with (None: a new run)."""
    if not task.decisions or task.conversation_id is None:
        return None
    return read_decisions(task.decisions)


def _stored(decisions: Decisions) -> dict[str, Any]:
    return {call_id: decision.as_json() for call_id, decision in decisions.items()}
