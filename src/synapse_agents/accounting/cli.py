"""`synapse spend` (the report, `reprice`) and `synapse limits` (`list`, `set`, `remove`).

Two Typer sub-apps, registered as a built-in plugin's commands. A refusal is one line on standard
error with exit code 1 (2 for an option that cannot be read).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import cli_common
from ..cli_common import echo_json, fail
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime
    from .spend import Figures

spend_app = typer.Typer(
    help='Spend from the ledger: calls, tokens and cost by day, agent, user, tenant or model.',
    invoke_without_command=True,
)
limits_app = typer.Typer(help='Spending limits: list, set and remove them.', no_args_is_help=True)
LIMIT_COLUMNS = (
    Column('Id', least=12, last=True),
    Column('Scope', least=6),
    Column('Scope id', least=10),
    Column('Period', least=10, drop=3),
    Column('Amount', least=8, right=True),
    Column('Consumed', least=8, right=True, drop=4),
    Column('Headroom', least=8, right=True),
    Column('Window', least=10, drop=5),
    Column('Enabled', least=7, drop=1),
)
"""`limits list`: in 80 columns the window, what is consumed and the period leave first."""


class GroupChoice(StrEnum):
    day = 'day'
    agent = 'agent'
    user = 'user'
    tenant = 'tenant'
    model = 'model'


def _refused(exc: Exception) -> tuple[str, int] | None:
    from .limits_store import LimitError

    return (exc.message, 1) if isinstance(exc, LimitError) else None


def opened(ctx: typer.Context, *, agents: bool = False) -> AbstractContextManager[SynapseRuntime]:
    """The root with the store (the agent catalog only when `agents`); a refusal of the settings,
    the store or a limit as one line."""
    return cli_common.opened(ctx, agents=agents, refused=_refused)


def _bound(value: str, option: str, zone: str, *, end: bool) -> datetime | None:
    from .spend import day_bound

    try:
        return day_bound(value, zone, end=end)
    except ValueError:
        fail(f'{option}: {value!r} is not an ISO date (2026-03-01) or datetime', 2)


def _cost(value: object) -> str:
    from decimal import Decimal

    from .spend import decimal_text

    return decimal_text(value) if isinstance(value, Decimal) else 'unpriced'


def _cells(figures: Figures) -> tuple[str, ...]:
    return (
        f'{figures.calls:,}',
        f'{figures.input_tokens:,}',
        f'{figures.output_tokens:,}',
        _cost(figures.cost),
        f'{figures.unpriced_calls:,}' if figures.unpriced_calls else '—',
    )


FromOption = Annotated[
    str, typer.Option('--from', help='A date (a whole day) or datetime; in the limits_timezone zone.')
]
ToOption = Annotated[str, typer.Option('--to', help='A date (that day included) or datetime.')]


@spend_app.callback()
def spend(
    ctx: typer.Context,
    by: Annotated[GroupChoice, typer.Option(help='What a row is.', case_sensitive=False)] = GroupChoice.day,
    date_from: FromOption = '',
    date_to: ToOption = '',
    agent: Annotated[str | None, typer.Option(help="Only this agent's calls (its slug).")] = None,
    user: Annotated[str | None, typer.Option(help='Only this user (type:id, or type alone).')] = None,
    tenant: Annotated[str | None, typer.Option(help='Only this tenant (type:id, or type alone).')] = None,
    model: Annotated[str | None, typer.Option(help="Only this model's calls.")] = None,
    as_json: Annotated[bool, typer.Option('--json', help='Print the JSON GET /api/spend answers.')] = False,
) -> None:
    """The spend report: a table of calls, tokens and cost per group, and the totals."""
    if ctx.invoked_subcommand is not None:
        return
    from .spend import SpendFilters, spend_report

    with opened(ctx) as runtime:
        settings = runtime.settings
        zone = settings.limits_timezone
        filters = SpendFilters(
            date_from=_bound(date_from, '--from', zone, end=False),
            date_to=_bound(date_to, '--to', zone, end=True),
            agent=agent,
            user=user,
            tenant=tenant,
            model=model,
        )
        report = spend_report(runtime.store, settings, by=by.value, filters=filters)
    if as_json:
        from .routes import Spend

        echo_json(Spend.of(report).model_dump(mode='json'))
        return
    table = Table(title=f'Spend by {by.value} ({report.currency}; days in {report.timezone})')
    table.add_column(by.value.capitalize(), overflow='fold')
    for name in ('Calls', 'Input tokens', 'Output tokens', f'Cost ({report.currency})', 'Unpriced calls'):
        table.add_column(name, justify='right')
    for row in report.rows:
        table.add_row(escape(row.key) if row.key else '—', *_cells(row))
    table.add_section()
    table.add_row('Total', *_cells(report.totals), style='bold')
    Console().print(table)


@spend_app.command('reprice')
def reprice_command(
    ctx: typer.Context,
    date_from: Annotated[str, typer.Option('--from', help='A date (a whole day) or datetime.')],
    date_to: Annotated[str, typer.Option('--to', help='A date (that day included) or datetime.')],
    dry_run: Annotated[bool, typer.Option('--dry-run', help='Show the changes; write nothing.')] = False,
) -> None:
    """Price the ledger's calls in a time range again with the prices known now; list each change."""
    from .reprice import reprice
    from .spend import decimal_text

    console = Console()
    with opened(ctx) as runtime:
        zone = runtime.settings.limits_timezone
        start = _bound(date_from, '--from', zone, end=False)
        end = _bound(date_to, '--to', zone, end=True)
        result = reprice(runtime.store, runtime.settings, start, end, dry_run=dry_run)
    for change in result.changes:
        old = (
            'unpriced'
            if change.old_cost is None
            else f'{decimal_text(change.old_cost)} {change.old_currency}'
        )
        new = f'{decimal_text(change.new_cost)} {change.new_currency}'
        console.print(
            f'{change.id}  {old} → {new}  ({escape(change.source or "no source")})', highlight=False
        )
    verb = 'Would change' if dry_run else 'Changed'
    console.print(
        f'{verb} {len(result.changes)} of {result.examined} calls'
        f' ({result.unpriced} with no known price kept as they were).'
        + (' Dry run: nothing was written.' if dry_run else ''),
        highlight=False,
    )


# -- limits ------------------------------------------------------------------------------------


@limits_app.command('list')
def limits_list(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option('--json', help='Print the JSON GET /api/limits answers.')] = False,
) -> None:
    """Every spending limit with what its current window holds."""
    from . import limits_store
    from .spend import decimal_text
    from .worst_case import worst_calls

    with opened(ctx, agents=as_json) as runtime:
        statuses = [
            limits_store.status(runtime.store, runtime.settings, row)
            for row in limits_store.listing(runtime.store)
        ]
        # The JSON is GET /api/limits' answer: each limit's worst call too (the agents' models).
        limits = [found.limit for found in statuses]
        worst = worst_calls(runtime.store, runtime.settings, runtime.catalog, limits) if as_json else []
    if as_json:
        from .routes import Limit, LimitList

        answer = LimitList(limits=[Limit.of(found, one) for found, one in zip(statuses, worst, strict=True)])
        echo_json(answer.model_dump(mode='json'))
        return
    if not statuses:
        Console().print('No spending limits.')
        return
    cells = []
    for found in statuses:
        row = found.limit
        window = f'{found.window_start:%Y-%m-%d %H:%M} → {found.window_end:%Y-%m-%d %H:%M} UTC'
        cells.append(
            (
                row.id,
                row.scope,
                row.scope_id,
                f'{row.period} ({row.timezone})' if row.period.startswith('calendar') else row.period,
                f'corrupt: {found.corrupt}'
                if found.corrupt
                else f'{decimal_text(row.amount)} {row.currency}',
                decimal_text(found.consumed),
                decimal_text(found.headroom),
                window,
                'yes' if row.enabled else 'no',
            )
        )
    table = fitted_table('Spending limits', LIMIT_COLUMNS, cells)
    Console().print(table)


@limits_app.command('set')
def limits_set(
    ctx: typer.Context,
    scope: Annotated[str, typer.Argument(help='tenant, user, agent or preset.')],
    scope_id: Annotated[
        str, typer.Argument(help='type:id for a tenant or user; an agent slug; a preset key.')
    ],
    period: Annotated[
        str, typer.Argument(help='calendar_day, calendar_month, sliding_day or sliding_month.')
    ],
    amount: Annotated[str, typer.Argument(help='The most that may be spent per period (a decimal).')],
    currency: Annotated[str | None, typer.Option(help='The reference currency when left out.')] = None,
    timezone: Annotated[
        str | None, typer.Option(help='For calendar periods: limits_timezone when left out.')
    ] = None,
    disabled: Annotated[
        bool, typer.Option('--disabled', help='Keep the limit but do not enforce it.')
    ] = False,
) -> None:
    """Set the limit of a scope id for a period: change the one there is, else add it. An agent or
    preset must be one Synapse knows (the closest names are suggested)."""
    from pydantic import ValidationError

    from . import limits_store
    from .limit_names import check_names

    try:
        body = limits_store.LimitInput(
            scope=scope,
            scope_id=scope_id,
            period=period,
            amount=amount,
            currency=currency,
            timezone=timezone,
            enabled=not disabled,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        where = '.'.join(str(part) for part in error.get('loc', ())) or 'input'
        fail(f'{where}: {str(error.get("msg", "invalid")).removeprefix("Value error, ")}', 2)
    with opened(ctx, agents=body.scope == 'agent') as runtime:
        check_names(runtime.store, runtime.catalog, body.scope, body.scope_id)
        row, created = limits_store.upsert(runtime.store, runtime.settings, body)
    from .spend import decimal_text

    verb = 'Added' if created else 'Changed'
    amount = f'{decimal_text(row.amount)} {row.currency}'
    Console().print(
        f'{verb} limit {row.id}: {row.scope} {escape(row.scope_id)}, {amount} per {row.period}'
        + ('' if row.enabled else ' (disabled)')
        + '.',
        highlight=False,
    )


@limits_app.command('remove')
def limits_remove(
    ctx: typer.Context, limit_id: Annotated[str, typer.Argument(help="The limit's id.")]
) -> None:
    """Remove a limit (its overruns stay in the log)."""
    from ..store.ids import is_valid_id, shown_id
    from . import limits_store

    if not is_valid_id(limit_id):
        fail(f'No spending limit with id {shown_id(limit_id)}.')
    with opened(ctx) as runtime:
        row = limits_store.delete(runtime.store, limit_id)
    Console().print(
        f'Removed limit {row.id} ({row.scope} {escape(row.scope_id)}, {row.period}).', highlight=False
    )
