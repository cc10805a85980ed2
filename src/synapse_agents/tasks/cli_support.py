"""What the `synapse tasks` commands share: opening the root, checking input, printing tables.

A refusal is one line on standard error (`fail`); a table is a Rich table on standard output.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import cli_common
from ..cli_common import fail, when
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime
    from ..scope import Ref
    from .errors import TaskError
    from .tables import AgentLog, AgentTask, StandingAgent

Id = Annotated[str, typer.Argument(help="The standing agent's id.")]
Demo = Annotated[bool, typer.Option('--demo', help='Include the offline demo agents.')]
Tenant = Annotated[str | None, typer.Option(help="The tenant as type:id, e.g. org:acme ('' for none).")]
Subject = Annotated[str | None, typer.Option(help="What it works on, as type:id ('' for none).")]
Cron = Annotated[str | None, typer.Option(help="Five cron fields or a nickname (@daily); '' for none.")]
Zone = Annotated[str | None, typer.Option(help='The IANA time zone of the schedule (UTC).')]
Events = Annotated[list[str] | None, typer.Option('--event', help='An event it runs on (repeat for more).')]
Debounce = Annotated[int | None, typer.Option(help='Seconds in which firings on a subject fold into one.')]
OPTIONS = {'debounce_seconds': '--debounce', 'events': '--event'}
Result = TypeVar('Result')


def say(text: str) -> None:
    """One line on standard output (`text` is markup-free)."""
    Console().print(escape(text), highlight=False, soft_wrap=True)


def checked(check: Callable[..., Result], *args: Any) -> Result:
    """`check(*args)`, a `TaskError` as one line: exit 2 for input that cannot be used, else 1."""
    from .errors import TaskError

    try:
        return check(*args)
    except TaskError as exc:
        fail(*_line(exc))


def _line(exc: TaskError) -> tuple[str, int]:
    """A refusal's line and exit code: 2 for input that cannot be used, else 1."""
    return exc.message, 2 if exc.status == 422 else 1


def _refused(exc: Exception) -> tuple[str, int] | None:
    from .errors import TaskError

    return _line(exc) if isinstance(exc, TaskError) else None


def opened(
    ctx: typer.Context, *, agents: bool = False, demo: bool = False
) -> AbstractContextManager[SynapseRuntime]:
    """The root (with the agent catalog when `agents`); every refusal as one line."""
    return cli_common.opened(ctx, agents=agents, demo=demo, refused=_refused)


def ref_of(option: str, value: str | None) -> Ref | None:
    """`type:id` as a pair (None for nothing or ''), or one line and exit 2."""
    kind, colon, ident = (value or '').partition(':')
    if value and not (colon and kind and ident):
        fail(f'{option}: expected type:id, such as org:acme, not {value!r:.80}', 2)
    return (kind, ident) if value else None


def validated(model: type[Result], values: dict[str, Any]) -> Result:
    """The input model, or its first problem as one line (exit 2)."""
    from pydantic import ValidationError

    try:
        return model(**values)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error['loc'][0]) if error.get('loc') else 'input'
        said = 'may not be blank' if error['type'] == 'string_pattern_mismatch' else error['msg']
        fail(f'{OPTIONS.get(field, "--" + field)}: {said.removeprefix("Value error, ")}', 2)


def prechecked(events: list[str] | None, tenant: str | None, subject: str | None) -> None:
    """Event names and scopes, refused in plainer words than a pattern mismatch."""
    from .events import check_event

    for name in events or []:
        checked(check_event, name)
    ref_of('--tenant', tenant)
    ref_of('--subject', subject)


def fields(*options: Any) -> dict[str, Any]:
    """The options given, as the store's input fields ('' clears the schedule, tenant or subject)."""
    names = (
        'name',
        'agent',
        'instruction',
        'cron',
        'timezone',
        'events',
        'debounce_seconds',
        'tenant',
        'subject',
    )
    values = {name: value for name, value in zip(names, options, strict=True) if value is not None}
    return values | {name: None for name in ('cron', 'tenant', 'subject') if values.get(name) == ''}


def check_agent_in(runtime: SynapseRuntime, agent: str) -> None:
    import anyio

    from .agents import check_agent

    anyio.run(check_agent, runtime, agent)


# -- formatting ----------------------------------------------------------------------------------


def cost_text(cost: Decimal | None) -> str:
    from ..accounting.spend import decimal_text

    return decimal_text(cost) if cost is not None else '—'


def duration_text(milliseconds: int | None) -> str:
    return f'{milliseconds / 1000:.1f} s' if milliseconds is not None else '—'


def counted(count: int, what: str) -> str:
    return f'{count} {what}' if count == 1 else f'{count} {what}s'


def describe(row: StandingAgent) -> str:
    """What starts it, in words."""
    from .schemas import StandingAgentOut

    words = StandingAgentOut.of(row, []).schedule_words
    parts = [f'{words}; {f"next run {when(row.next_fire_at)}" if row.enabled else "paused"}'] if words else []
    if row.events:
        debounce = f' (debounce {row.debounce_seconds} s)' if row.debounce_seconds else ''
        parts.append(f'on {", ".join(row.events)}{debounce}' + ('' if row.enabled or words else ', paused'))
    return '; '.join(parts) or 'runs only when asked (synapse tasks run)'


ID = Column('Id', least=12, last=True)
"""An id: on one line when the terminal has room, else folded over lines of 12 or more, never cut."""
NAME = Column('Name', least=10)
AGENT = Column('Agent', least=10)
STANDING_COLUMNS = (
    ID,
    NAME,
    AGENT,
    Column('Schedule', least=10, drop=3),
    Column('Next run', least=10),
    Column('Events', least=10, drop=5),
    Column('Enabled', least=7, drop=4),
    Column('Last run', least=9),
    Column('Cost', least=6, right=True, drop=6),
    Column('Took', least=6, right=True, drop=7),
)
"""`synapse tasks list`: in 80 columns, the id, name, agent, next run and last run."""
RUNS_COLUMNS = (
    Column('Task', least=12, last=True),
    AGENT,
    Column('Trigger', least=8, drop=3),
    Column('Status', least=9),
    Column('Queued', least=10, drop=2),
    Column('Duration', least=8, right=True, drop=4),
    Column('Cost', least=6, right=True, drop=5),
    Column('Error', least=12, drop=1),
)
"""A list of tasks: in 80 columns, the id, agent, trigger, status, when queued and the error."""
LOG_COLUMNS = (
    Column('Step', least=4, right=True),
    Column('Kind', least=8),
    Column('Message', least=16),
    Column('At', least=10),
)


def runs_table(rows: list[AgentTask], title: str) -> Table:
    """The tasks as a table; one whose stored context cannot be read is marked `corrupt: ...`."""
    from .tables import unreadable_context

    cells = [
        (
            row.id,
            row.agent_key,
            f'event {row.event}' if row.trigger == 'event' else row.trigger,
            row.status,
            when(row.queued_at),
            duration_text(row.duration_ms),
            cost_text(row.cost),
            f'corrupt: {damaged}'
            if (damaged := unreadable_context(row))
            else (row.error or '').split('\n')[0][:120],
        )
        for row in rows
    ]
    return fitted_table(title, RUNS_COLUMNS, cells)


# -- reading --------------------------------------------------------------------------------------


def print_task(task: AgentTask, logs: list[AgentLog]) -> None:
    say(f'Task {task.id}: {task.status}, agent {task.agent_key}, trigger {task.trigger}.')
    say(
        f'Queued {when(task.queued_at)}, started {when(task.started_at)}, finished {when(task.finished_at)}'
        f' ({duration_text(task.duration_ms)}); tokens {task.input_tokens} in, {task.output_tokens} out;'
        f' cost {cost_text(task.cost)}; conversation {task.conversation_id or "—"}.'
    )
    if task.error:
        say(f'Error: {task.error}')
    cells = [(str(entry.seq), entry.kind, entry.message, when(entry.created_at)) for entry in logs]
    Console().print(fitted_table('Log', LOG_COLUMNS, cells) if logs else 'No log yet.')
