"""`synapse tasks`: standing agents (list, show, add, edit, rm, pause, resume, run), their tasks
(`list --runs`, `show`, `cancel`) and events (`fire`).

Registered as a built-in plugin's command, next to `synapse worker` and `synapse scheduler`
(`processes.py`). Every change goes through the services the HTTP API uses. A refusal is one line
on standard error with exit code 1, or 2 for input the command cannot use (a bad cron expression,
time zone, scope, event name or JSON context, an unknown agent); nothing is stored then.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from ..cli_common import Json, echo_json, fail, when
from ..cli_tables import fitted_table
from .cli_support import (
    STANDING_COLUMNS,
    Cron,
    Debounce,
    Demo,
    Events,
    Id,
    Subject,
    Tenant,
    Zone,
    check_agent_in,
    checked,
    cost_text,
    counted,
    describe,
    duration_text,
    fields,
    opened,
    prechecked,
    print_task,
    ref_of,
    runs_table,
    say,
    validated,
)

tasks_app = typer.Typer(
    help='Agents that run themselves: standing agents, their tasks and events.', no_args_is_help=True
)


@tasks_app.command('list')
def list_command(
    ctx: typer.Context,
    runs: Annotated[bool, typer.Option('--runs', help='List recent tasks instead.')] = False,
    status: Annotated[list[str] | None, typer.Option(help='With --runs: only this status (repeat).')] = None,
    agent: Annotated[str | None, typer.Option(help="With --runs: only this agent's tasks.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=500, help='With --runs: at most this many.')] = 50,
    as_json: Json = False,
) -> None:
    """The standing agents with their schedule, next run and last run (or, with --runs, tasks)."""
    from . import queue, standing_store
    from .schemas import StandingAgentList, StandingAgentOut, TaskPage, TaskSummary
    from .tables import STATUSES

    if runs:
        for value in status or []:
            if value not in STATUSES:
                fail(f'--status: {value!r} is not one of {", ".join(STATUSES)}', 2)
        filters = queue.TaskFilters(status=tuple(status or ()), agent=agent, limit=limit)
        with opened(ctx) as runtime:
            tasks = queue.list_tasks(runtime.store, filters)
        if as_json:
            last = tasks[-1].id if len(tasks) == limit else None
            echo_json(
                TaskPage(tasks=[TaskSummary.of(t) for t in tasks], next_before=last).model_dump(mode='json')
            )
        else:
            Console().print(runs_table(tasks, 'Tasks, newest first') if tasks else 'No tasks.')
        return
    with opened(ctx) as runtime:
        rows = standing_store.list_all(runtime.store)
        recent = queue.recent_runs(runtime.store, [row.id for row in rows])
    shown = [StandingAgentOut.of(row, recent.get(row.id, [])) for row in rows]
    if as_json:
        echo_json(StandingAgentList(standing_agents=shown).model_dump(mode='json'))
        return
    if not rows:
        say('No standing agents. Add one with: synapse tasks add --name … --agent … --instruction …')
        return
    cells = []
    for row, out in zip(rows, shown, strict=True):
        last_run = recent[row.id][0] if recent.get(row.id) else None
        cells.append(
            (
                row.id,
                row.name,
                row.agent_key,
                out.schedule_words or '—',
                when(row.next_fire_at) if row.enabled else 'paused',
                ', '.join(row.events) or '—',
                'yes' if row.enabled else 'paused',
                last_run.status if last_run else '—',
                cost_text(last_run.cost) if last_run else '—',
                duration_text(last_run.duration_ms) if last_run else '—',
            )
        )
    Console().print(fitted_table('Standing agents', STANDING_COLUMNS, cells))


@tasks_app.command('show')
def show_command(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help='A standing agent id (with its last runs) or a task id.')],
    as_json: Json = False,
) -> None:
    """A standing agent with its last runs, or a task with its log."""
    from ..store.ids import shown_id
    from . import queue, standing_store
    from .decisions import waiting_calls
    from .errors import TaskError
    from .schemas import StandingAgentOut, TaskDetail
    from .tables import unreadable_context

    with opened(ctx) as runtime:
        try:
            row = standing_store.get(runtime.store, item_id)
            runs = queue.recent_runs(runtime.store, [row.id])[row.id]
        except TaskError:
            try:
                task, logs = queue.get_task(runtime.store, item_id)
            except TaskError:
                fail(f'No standing agent or task with id {shown_id(item_id)}.')
            if (damaged := unreadable_context(task)) is not None:
                fail(str(damaged))
            waiting = waiting_calls(runtime.store, task)
            if as_json:
                echo_json({'task': TaskDetail.with_logs(task, logs, waiting).model_dump(mode='json')})
                return
            print_task(task, logs)
            for call in waiting:
                args = json.dumps(call['args'], ensure_ascii=False)
                say(f'Waiting ({call["kind"]}): {call["tool_call_id"]} {call["tool_name"]}({args})')
            if waiting:
                say(f'Answer: synapse tasks decide {task.id} --approve ID --deny ID:reason --result ID=JSON')
            return
    if as_json:
        echo_json({'standing_agent': StandingAgentOut.of(row, runs).model_dump(mode='json')})
        return
    tenant = standing_store.ref_text(row.tenant_type, row.tenant_id) or 'none'
    subject = standing_store.ref_text(row.subject_type, row.subject_id) or 'none'
    say(f'{row.name} ({row.id}): agent {row.agent_key}, {"enabled" if row.enabled else "paused"}.')
    say(f'Runs: {describe(row)}.')
    say(f'Tenant: {tenant}; subject: {subject}.')
    say(f'Instruction: {row.instruction}')
    Console().print(runs_table(runs, 'Last runs') if runs else 'No runs yet.')


# -- changing -------------------------------------------------------------------------------------


@tasks_app.command('add')
def add_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Option(help='A name people know it by.')],
    agent: Annotated[str, typer.Option(help="The agent it runs: a code agent's slug or config:<key>.")],
    instruction: Annotated[str, typer.Option(help='What the agent is asked to do on each run.')],
    cron: Cron = None,
    timezone: Zone = None,
    event: Events = None,
    debounce: Debounce = None,
    tenant: Tenant = None,
    subject: Subject = None,
    paused: Annotated[bool, typer.Option('--paused', help='Add it paused (resume it later).')] = False,
    demo: Demo = False,
    as_json: Json = False,
) -> None:
    """Add a standing agent: on a schedule (--cron), on events (--event), or only when asked."""
    from .schemas import StandingAgentOut
    from .standing_store import StandingInput, checked_schedule, create

    prechecked(event, tenant, subject)
    checked(checked_schedule, cron, timezone or 'UTC')
    given = fields(name, agent, instruction, cron, timezone, event, debounce, tenant, subject)
    data = validated(StandingInput, given | {'enabled': not paused})
    with opened(ctx, agents=True, demo=demo) as runtime:
        check_agent_in(runtime, agent)
        row = create(runtime.store, data)
    if as_json:
        echo_json(StandingAgentOut.of(row, []).model_dump(mode='json'))
    else:
        say(f'Added standing agent {row.id} ({row.name}): {describe(row)}.')


@tasks_app.command('edit')
def edit_command(
    ctx: typer.Context,
    standing_id: Id,
    name: Annotated[str | None, typer.Option(help='A new name.')] = None,
    agent: Annotated[str | None, typer.Option(help='Another agent (slug or config:<key>).')] = None,
    instruction: Annotated[str | None, typer.Option(help='A new instruction.')] = None,
    cron: Cron = None,
    timezone: Zone = None,
    event: Annotated[
        list[str] | None, typer.Option('--event', help='The events it runs on (all of them).')
    ] = None,
    no_events: Annotated[bool, typer.Option('--no-events', help='Stop it running on events.')] = False,
    debounce: Debounce = None,
    tenant: Tenant = None,
    subject: Subject = None,
    demo: Demo = False,
) -> None:
    """Change what the options give; the rest stays (`--cron ''` removes the schedule)."""
    from .standing_store import StandingPatch, get, update

    prechecked(event, tenant, subject)
    values = fields(
        name, agent, instruction, cron, timezone, [] if no_events else event, debounce, tenant, subject
    )
    if not values:
        fail('Nothing to change: give at least one option (see synapse tasks edit --help).', 2)
    patch = validated(StandingPatch, values)
    with opened(ctx, agents=agent is not None, demo=demo) as runtime:
        get(runtime.store, standing_id)  # an unknown id is the first thing said
        if agent is not None:
            check_agent_in(runtime, agent)
        row = update(runtime.store, standing_id, patch)
    say(f'Changed standing agent {row.id} ({row.name}): {describe(row)}.')


@tasks_app.command('rm')
def remove_command(ctx: typer.Context, standing_id: Id) -> None:
    """Remove a standing agent (its tasks stay in the history)."""
    from .standing_store import get, remove

    with opened(ctx) as runtime:
        row = get(runtime.store, standing_id)
        remove(runtime.store, standing_id)
    say(f'Removed standing agent {row.id} ({row.name}); its tasks stay in the history.')


def set_enabled(ctx: typer.Context, standing_id: str, enabled: bool) -> None:
    from . import standing_store

    with opened(ctx) as runtime:
        row = standing_store.set_enabled(runtime.store, standing_id, enabled)
    say(f'{"Resumed" if enabled else "Paused"} standing agent {row.id} ({row.name}): {describe(row)}.')


@tasks_app.command('pause')
def pause_command(ctx: typer.Context, standing_id: Id) -> None:
    """Pause a standing agent: its schedule and events start nothing until it is resumed."""
    set_enabled(ctx, standing_id, False)


@tasks_app.command('resume')
def resume_command(ctx: typer.Context, standing_id: Id) -> None:
    """Resume a paused standing agent (its schedule counts from now; missed runs are not made up)."""
    set_enabled(ctx, standing_id, True)


# -- running --------------------------------------------------------------------------------------


@tasks_app.command('run')
def run_command(
    ctx: typer.Context,
    standing_id: Id,
    wait: Annotated[bool, typer.Option('--wait', help='Run it in this process; print the outcome.')] = False,
    demo: Demo = False,
) -> None:
    """Queue a run of a standing agent now (paused or not); --wait runs it here, no server needed."""
    from . import queue
    from .cli_processes import run_here
    from .service import task_service
    from .standing_store import get

    with opened(ctx, agents=wait, demo=demo) as runtime:
        row = get(runtime.store, standing_id)
        if not wait:
            queued = task_service(runtime).run_now(standing_id)
            if queued.notice is not None:
                say(f'Task {queued.task_id} of {row.name}: queued. {queued.notice}')
                return
            settings = runtime.settings
            where = f'published to the queue {settings.queue_name}' if settings.queue_url else 'queued for'
            say(f'Task {queued.task_id} of {row.name}: {where} a worker (synapse serve or synapse worker).')
            return
        task = run_here(runtime, queue.enqueue_manual(runtime.store, standing_id))
    say(
        f'Task {task.id} {task.status} in {duration_text(task.duration_ms)}: tokens {task.input_tokens} in, '
        f'{task.output_tokens} out; cost {cost_text(task.cost)}; conversation {task.conversation_id or "—"}.'
    )
    if task.status != 'succeeded':
        fail(f'task {task.id} {task.status}: {task.error or "no reason recorded"}')
    say(task.output if isinstance(task.output, str) else json.dumps(task.output, ensure_ascii=False))


@tasks_app.command('cancel')
def cancel_command(
    ctx: typer.Context, task_id: Annotated[str, typer.Argument(help="The task's id.")]
) -> None:
    """Cancel a queued task, or ask the worker running it to stop it (at its next heartbeat)."""
    from . import queue

    with opened(ctx) as runtime:
        row = queue.cancel(runtime.store, task_id)
    if row.status == 'cancelled':
        say(f'Cancelled task {row.id} before it started.')
    else:
        say(f'Asked the worker running task {row.id} to stop it at its next heartbeat.')


@tasks_app.command('decide')
def decide_command(
    ctx: typer.Context,
    task_id: Annotated[str, typer.Argument(help="The awaiting task's id.")],
    approve: Annotated[list[str] | None, typer.Option('--approve', help='A tool call id to approve.')] = None,
    deny: Annotated[
        list[str] | None, typer.Option('--deny', help='A tool call id to deny, optionally ID:reason.')
    ] = None,
    result: Annotated[
        list[str] | None,
        typer.Option(
            '--result', help='ID=JSON: the result of a call made outside the run (text if not JSON).'
        ),
    ] = None,
) -> None:
    """Answer the tool calls an awaiting task waits on; it is queued again and resumes its run."""
    from .service import task_service

    decisions: dict[str, object] = {call_id: {'approved': True} for call_id in approve or []}
    for item in deny or []:
        call_id, _, reason = item.partition(':')
        decisions[call_id] = {'approved': False, **({'reason': reason} if reason else {})}
    for item in result or []:
        call_id, equals, text = item.partition('=')
        if not equals:
            fail(f'--result: expected ID=JSON, got {item!r:.80}.', 2)
        try:
            decisions[call_id] = {'result': json.loads(text)}
        except ValueError:
            decisions[call_id] = {'result': text}
    if not decisions:
        fail('Nothing decided: pass --approve, --deny or --result for each waiting call.', 2)
    with opened(ctx) as runtime:
        task = task_service(runtime).decide(task_id, decisions)
    say(f'Task {task.id} is queued again with {counted(len(decisions), "decision")}.')


@tasks_app.command('fire')
def fire_command(
    ctx: typer.Context,
    event: Annotated[str, typer.Argument(help='The event name, e.g. order.shipped.')],
    tenant: Annotated[str | None, typer.Option(help='The tenant it happened in, as type:id.')] = None,
    subject: Annotated[str | None, typer.Option(help='What it happened to, as type:id.')] = None,
    context: Annotated[str | None, typer.Option(help='A JSON object the runs are given.')] = None,
    as_json: Json = False,
) -> None:
    """Fire an event: every standing agent listening to it in the tenant runs (debounce folds firings)."""
    from .events import check_context, check_event, check_scope
    from .schemas import FiredOut
    from .service import task_service

    name = checked(check_event, event)
    scope = checked(check_scope, ref_of('--tenant', tenant), ref_of('--subject', subject))
    payload = None
    if context is not None:
        try:
            payload = json.loads(context)
        except ValueError as exc:
            fail(f'--context: not JSON ({exc})', 2)
        if not isinstance(payload, dict):
            fail(f'--context: expected a JSON object, not {type(payload).__name__}', 2)
        payload = checked(check_context, payload)
    with opened(ctx) as runtime:
        fired = task_service(runtime).fire(name, tenant=scope.tenant, subject=scope.subject, context=payload)
    if as_json:
        shown = FiredOut(
            event=fired.event, queued=fired.queued, debounced=fired.debounced, notice=fired.notice
        )
        echo_json(shown.model_dump())
    elif not fired.tasks:
        say(f'Fired {name}: no enabled standing agent listens to it here.')
    else:
        queued = ''.join(f' {task_id}' for task_id in fired.queued)
        folded = f'; folded into {counted(len(fired.debounced), "queued task")}' if fired.debounced else ''
        notice = f' {fired.notice}' if fired.notice is not None else ''
        say(f'Fired {name}: queued {counted(len(fired.queued), "task")}{queued}{folded}.{notice}')
