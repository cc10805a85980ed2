"""The task area's HTTP shapes: standing agents, tasks, their logs, events and schedule previews.

Amounts are decimal strings in the reference currency (`"0.0123"`; null when unknown or
unpriced), timestamps ISO 8601 in UTC with milliseconds, scopes `type:id` text.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from ..accounting.spend import decimal_text
from ..corrupt import note
from ..scope import scope_problem
from ..wire_types import Timestamp
from .schedule import Schedule, ScheduleError
from .standing_store import RefText, ref_text
from .tables import AgentLog, AgentTask, StandingAgent, unreadable_context

Amount = Annotated[Decimal, PlainSerializer(decimal_text, return_type=str)]


class TaskSummary(BaseModel):
    """One task (a run) as lists show it."""

    id: str
    standing_agent_id: str | None
    agent: str
    trigger: str
    """`schedule`, `event` or `manual`."""
    event: str | None
    fires: int
    """How many firings this run stands for (debounced events fold into one)."""
    slot_at: Timestamp | None
    tenant: str | None
    subject: str | None
    status: str
    """`queued`, `running`, `awaiting` (its run waits for decisions on tool calls), `succeeded`,
    `failed` or `cancelled`."""
    cancel_requested: bool
    worker: str | None
    queued_at: Timestamp
    not_before: Timestamp
    started_at: Timestamp | None
    heartbeat_at: Timestamp | None
    finished_at: Timestamp | None
    duration_ms: int | None
    input_tokens: int
    output_tokens: int
    cost: Amount | None
    error: str | None
    conversation_id: str | None
    corrupt: str | None = Field(
        None,
        description='Set when a stored value of the task cannot be read, naming the row: a context edited '
        'by hand to something that is not a JSON object (its detail is then a 409 `corrupt_row`), or a '
        "scope type holding ':' (written before that was refused). A worker fails it without running it. "
        'Null otherwise.',
    )

    @classmethod
    def of(cls, row: AgentTask) -> TaskSummary:
        damaged = unreadable_context(row)
        mark = str(damaged) if damaged is not None else None
        if mark is None and (problem := scope_problem(row)) is not None:
            mark = note('agent_tasks', row.id, problem)
        return cls(
            id=row.id,
            standing_agent_id=row.standing_agent_id,
            agent=row.agent_key,
            trigger=row.trigger,
            event=row.event,
            fires=row.fires,
            slot_at=row.slot_at,
            tenant=ref_text(row.tenant_type, row.tenant_id),
            subject=ref_text(row.subject_type, row.subject_id),
            status=row.status,
            cancel_requested=row.cancel_requested,
            worker=row.worker,
            queued_at=row.queued_at,
            not_before=row.not_before,
            started_at=row.started_at,
            heartbeat_at=row.heartbeat_at,
            finished_at=row.finished_at,
            duration_ms=row.duration_ms,
            input_tokens=row.input_tokens,
            output_tokens=row.output_tokens,
            cost=row.cost,
            error=row.error,
            conversation_id=row.conversation_id,
            corrupt=mark,
        )


class TaskLogEntry(BaseModel):
    """One step of a run."""

    seq: int
    kind: str
    """`started`, `notice`, `model_response`, `tool_call`, `tool_result`, `output`, `error`, `finished`."""
    message: str
    data: dict[str, Any] | None
    created_at: Timestamp

    @classmethod
    def of(cls, row: AgentLog) -> TaskLogEntry:
        return cls(seq=row.seq, kind=row.kind, message=row.message, data=row.data, created_at=row.created_at)


class TaskDetail(TaskSummary):
    """One task with what it was asked, its output and its log."""

    instruction: str
    context: dict[str, Any] | None
    output: Any
    run_id: str | None
    logs: list[TaskLogEntry]
    waiting: list[dict[str, Any]] = Field(
        default_factory=list,
        description='An `awaiting` task: the tool calls that wait (tool_call_id, tool_name, args, kind '
        '`approval` or `external`); answer them with `POST /api/tasks/{task_id}/decisions`.',
    )

    @classmethod
    def with_logs(
        cls, row: AgentTask, logs: list[AgentLog], waiting: list[dict[str, Any]] | None = None
    ) -> TaskDetail:
        """The task in full; `CorruptRow` when its stored context cannot be read."""
        if (problem := unreadable_context(row)) is not None:
            raise problem
        return cls(
            waiting=waiting or [],
            **TaskSummary.of(row).model_dump(),
            instruction=row.instruction,
            context=row.context,
            output=row.output,
            run_id=row.run_id,
            logs=[TaskLogEntry.of(entry) for entry in logs],
        )


class TaskPage(BaseModel):
    tasks: list[TaskSummary]
    next_before: str | None
    """Pass as `before` for the next page (null: this is the last)."""


class StandingAgentOut(BaseModel):
    """A standing agent, its schedule in words, its next run and its last runs."""

    id: str
    name: str
    agent: str
    instruction: str
    tenant: str | None
    subject: str | None
    cron: str | None
    timezone: str
    schedule_words: str | None
    """"At 09:00, Monday through Friday (Europe/Madrid)"; null without a schedule."""
    events: list[str]
    debounce_seconds: int
    enabled: bool
    next_fire_at: Timestamp | None
    last_fired_at: Timestamp | None
    created_at: Timestamp
    updated_at: Timestamp
    last_runs: list[TaskSummary]
    """The newest runs first (at most five)."""

    @classmethod
    def of(cls, row: StandingAgent, runs: list[AgentTask]) -> StandingAgentOut:
        words = None
        if row.cron:
            try:
                words = Schedule.parse(row.cron, row.timezone).words()
            except ScheduleError:
                words = None
        return cls(
            id=row.id,
            name=row.name,
            agent=row.agent_key,
            instruction=row.instruction,
            tenant=ref_text(row.tenant_type, row.tenant_id),
            subject=ref_text(row.subject_type, row.subject_id),
            cron=row.cron,
            timezone=row.timezone,
            schedule_words=words,
            events=list(row.events or []),
            debounce_seconds=row.debounce_seconds,
            enabled=row.enabled,
            next_fire_at=row.next_fire_at if row.enabled else None,
            last_fired_at=row.last_fired_at,
            created_at=row.created_at,
            updated_at=row.updated_at,
            last_runs=[TaskSummary.of(task) for task in runs],
        )


class StandingAgentList(BaseModel):
    standing_agents: list[StandingAgentOut]


class EventIn(BaseModel):
    """An event to fire."""

    model_config = ConfigDict(extra='forbid')

    event: str = Field(min_length=1, max_length=100)
    tenant: RefText | None = None
    subject: RefText | None = None
    context: dict[str, Any] | None = None


class FiredOut(BaseModel):
    """What an event started: the tasks it queued, the queued ones it folded into (debounce)."""

    event: str
    queued: list[str]
    debounced: list[str]
    notice: str | None = None
    """Set when the broker did not answer: the tasks stay queued and are published when it does."""


class RunQueued(BaseModel):
    task: TaskSummary
    notice: str | None = None
    """Set when the broker did not answer: the task stays queued and is published when it does."""


class SchedulePreview(BaseModel):
    """A cron expression checked: its words and next fire times."""

    cron: str
    timezone: str
    words: str
    next: list[Timestamp]


class DecisionsIn(BaseModel):
    """Answers to the tool calls an awaiting task waits on, by tool call id."""

    decisions: dict[str, Any] = Field(
        description='{"approved": true}, {"approved": false, "reason": "..."} or {"result": ...} per call.'
    )
