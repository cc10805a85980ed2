"""The accounting HTTP API: the spend report (`/api/spend`), spending limits and their overruns.

Amounts are decimal strings (exact: `"0.0123"`), in the reference currency for the report and in
the limit's currency for a limit; timestamps ISO 8601 in UTC with milliseconds. The services run
in a thread; their refusals (`LimitError`) become JSON errors with the same status and words.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ..store.ids import is_valid_id, shown_id
from ..web.context import SynapseContext
from ..web.errors import ApiError, error_responses, require_id
from ..wire_types import Timestamp
from . import limits_store
from .limit_choices import MAX_CHOICES, choices
from .limit_names import check_names
from .limits_store import LimitInput, LimitPatch, LimitStatus, OverrunFilters, Scope
from .route_types import ID_SCHEMA, Context, Day, DecimalText, From, Name, ScopeName, To, bound, call
from .spend import Figures, GroupBy, SpendFilters, SpendReport, Stack, spend_report
from .tables import SpendingLimit, SpendingOverrun
from .worst_case import WorstCall, worst_calls

router = APIRouter(tags=['accounting'])

# -- the spend report --------------------------------------------------------------------------


class SpendFigures(BaseModel):
    """Calls, tokens and cost of a group of model requests."""

    calls: int
    input_tokens: int
    output_tokens: int
    cost: DecimalText | None = Field(description='Null only when every call of the group is unpriced.')
    unpriced_calls: int = Field(description='Calls with no known price (never counted as 0).')

    @classmethod
    def fields_of(cls, figures: Figures) -> dict[str, Any]:
        return {
            'calls': figures.calls,
            'input_tokens': figures.input_tokens,
            'output_tokens': figures.output_tokens,
            'cost': figures.cost,
            'unpriced_calls': figures.unpriced_calls,
        }


class SpendRow(SpendFigures):
    """One group: its key ('' for requests that name none) and, grouped by day, the day."""

    key: str
    day: Day | None = None


class SpendPoint(BaseModel):
    """The cost of one agent or model on one day (the chart's stacked series)."""

    day: Day
    key: str
    cost: DecimalText | None


class Spend(BaseModel):
    """The spend report, amounts in the reference currency, days in `timezone`."""

    by: GroupBy
    stack: Stack
    currency: str
    timezone: str
    rows: list[SpendRow]
    totals: SpendFigures
    series: list[SpendPoint]
    missing_rates: list[str] = Field(
        description='Currencies with no exchange rate to `currency` among the calls reported and the '
        "registry's prices: calls priced in them count as unpriced until `currency_rates` gives one."
    )

    @classmethod
    def of(cls, report: SpendReport) -> Spend:
        return cls(
            by=report.by,
            stack=report.stack,
            currency=report.currency,
            timezone=report.timezone,
            rows=[SpendRow(key=row.key, day=row.day, **SpendFigures.fields_of(row)) for row in report.rows],
            totals=SpendFigures(**SpendFigures.fields_of(report.totals)),
            series=[SpendPoint(day=p.day, key=p.key, cost=p.cost) for p in report.series],
            missing_rates=report.missing_rates,
        )


@router.get('/api/spend', response_model=Spend)
async def spend(
    context: Context,
    by: Annotated[GroupBy, Query(description='What a row is.')] = 'day',
    stack: Annotated[Stack, Query(description="What the daily series' stacks are.")] = 'agent',
    date_from: From = '',
    date_to: To = '',
    agent: Name = None,
    user: ScopeName = None,
    tenant: ScopeName = None,
    model: Name = None,
) -> Spend:
    """Model requests, tokens and cost from the ledger, grouped, with totals and the daily series."""
    zone = context.settings.limits_timezone
    filters = SpendFilters(
        date_from=bound(date_from, 'from', zone, end=False),
        date_to=bound(date_to, 'to', zone, end=True),
        agent=agent,
        user=user,
        tenant=tenant,
        model=model,
    )
    report = await run_in_threadpool(
        lambda: spend_report(context.store, context.settings, by=by, stack=stack, filters=filters)
    )
    return Spend.of(report)


# -- limits ------------------------------------------------------------------------------------


class LimitWorstCall(BaseModel):
    """The most one call's output may reserve under the limit (docs/accounting.md, "Worst case")."""

    amount: DecimalText | None = Field(
        description="In the limit's currency; null when the model has no known price (its calls reserve "
        'nothing) or no rate converts it.'
    )
    currency: str
    output_tokens: int = Field(
        description="max_tokens, else the model's max_output_tokens, else the default."
    )
    model: str = Field(description='The model behind the figure.')
    agent: str | None = Field(
        description="The agent whose model it is (for a tenant or user limit, the dearest of every agent's); "
        'null for a preset limit.'
    )

    @classmethod
    def of(cls, worst: WorstCall) -> LimitWorstCall:
        return cls(
            amount=worst.amount,
            currency=worst.currency,
            output_tokens=worst.output_tokens,
            model=worst.model,
            agent=worst.agent,
        )


class Limit(BaseModel):
    """A spending limit and its current window: what was spent and reserved in it, what is left."""

    id: str
    scope: str
    scope_id: str
    period: str
    amount: DecimalText | None = Field(
        description='Null only when the stored amount cannot be read (`corrupt`).'
    )
    currency: str
    timezone: str
    enabled: bool
    corrupt: str | None = Field(
        None,
        description='Set when the stored row cannot be read (an amount that is not a number, edited by '
        'hand): the limit then refuses every call it applies to, until its amount is changed.',
    )
    consumed: DecimalText = Field(description='Spent and reserved in the current window, in `currency`.')
    headroom: DecimalText = Field(description='`amount - consumed`, never below 0.')
    window_start: Timestamp
    window_end: Timestamp
    worst_call: LimitWorstCall | None = Field(
        None,
        description='The most the output of one call it applies to may reserve: before a call, its '
        'input tokens at the input price are reserved too. Null when it applies to no agent or preset '
        'Synapse knows.',
    )
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, found: LimitStatus, worst: WorstCall | None = None) -> Limit:
        row = found.limit
        return cls(
            id=row.id,
            scope=row.scope,
            scope_id=row.scope_id,
            period=row.period,
            amount=None if found.corrupt else row.amount,
            currency=row.currency,
            timezone=row.timezone,
            enabled=row.enabled,
            corrupt=found.corrupt,
            consumed=found.consumed,
            headroom=found.headroom,
            window_start=found.window_start,
            window_end=found.window_end,
            worst_call=None if worst is None else LimitWorstCall.of(worst),
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


class LimitList(BaseModel):
    limits: list[Limit]


class LimitDeleted(BaseModel):
    deleted: str = Field(description="The removed limit's id.")


class Overrun(BaseModel):
    """A model call a limit refused, with the limit's figures then."""

    id: str
    limit_id: str | None
    user: str | None
    tenant: str | None
    scope: str
    scope_id: str
    period: str
    limit_amount: DecimalText
    consumed: DecimalText = Field(description='Spent and reserved in the window before the call.')
    estimated: DecimalText = Field(description="The call's estimated worst-case cost.")
    overrun: DecimalText = Field(description='consumed + estimated - limit_amount.')
    currency: str
    agent_key: str | None
    conversation_id: str | None
    run_id: str | None
    created_at: Timestamp

    @classmethod
    def of(cls, row: SpendingOverrun) -> Overrun:
        return cls.model_validate(row, from_attributes=True)


class OverrunPage(BaseModel):
    overruns: list[Overrun]
    total: int


def _statuses(context: SynapseContext) -> list[Limit]:
    rows = limits_store.listing(context.store)
    found = [limits_store.status(context.store, context.settings, row) for row in rows]
    return _with_worst(context, found)


def _with_worst(context: SynapseContext, found: list[LimitStatus]) -> list[Limit]:
    """The limits as the API answers them, each with its worst call (`worst_case`)."""
    readable: list[SpendingLimit] = [status.limit for status in found]
    worst = worst_calls(context.store, context.settings, context.catalog, readable)
    return [Limit.of(status, one) for status, one in zip(found, worst, strict=True)]


def _status(context: SynapseContext, limit_id: str) -> Limit:
    found = limits_store.get(context.store, limit_id, readable=True)
    return _with_worst(context, [limits_store.status(context.store, context.settings, found)])[0]


def _saved(context: SynapseContext, row: SpendingLimit) -> Limit:
    return _with_worst(context, [limits_store.status(context.store, context.settings, row)])[0]


@router.get('/api/limits', response_model=LimitList)
async def limits(context: Context) -> LimitList:
    """Every spending limit with its current window's consumption, headroom and worst call."""
    return LimitList(limits=await call(_statuses, context))


@router.post('/api/limits', response_model=Limit, status_code=201, responses=error_responses(409))
async def create_limit(body: LimitInput, context: Context) -> Limit:
    """Add a limit (one per scope id and period: a second is a 409). An agent or preset that
    Synapse does not know is a 422 naming the closest ones."""
    await call(check_names, context.store, context.catalog, body.scope, body.scope_id)
    row = await call(limits_store.create, context.store, context.settings, body)
    return await call(_saved, context, row)


class LimitChoice(BaseModel):
    """A name a limit may apply to."""

    value: str = Field(description='The scope id to send: a slug, a preset key, a `type:id`.')
    label: str = Field(description="What to show: the agent's or preset's name, else the value.")
    source: str = Field(description='`discovered`, `configured`, `registry` or `ledger` (seen in calls).')


class LimitChoices(BaseModel):
    scope: Scope
    choices: list[LimitChoice]
    truncated: bool = Field(description=f'More matched than the {MAX_CHOICES} listed: narrow with `q`.')


@router.get('/api/limits/choices', response_model=LimitChoices)
async def limit_choices(
    context: Context,
    scope: Annotated[Scope, Query(description='What the limit applies to.')],
    q: Annotated[str | None, Query(max_length=255, description='A part of the name (any case).')] = None,
    tenant: ScopeName = None,
) -> LimitChoices:
    """What a limit of `scope` may apply to: the agents or presets Synapse knows, or the tenants and
    users seen in the ledger (the most recent first, at most 200; `tenant` keeps that tenant's users)."""
    found, truncated = await call(
        lambda: choices(context.store, context.catalog, scope, tenant=tenant, query=q or None)
    )
    return LimitChoices(
        scope=scope,
        choices=[LimitChoice(value=c.value, label=c.label, source=c.source) for c in found],
        truncated=truncated,
    )


@router.get('/api/limits/overruns', response_model=OverrunPage)
async def overruns(
    context: Context,
    limit: Annotated[
        str | None, Query(description="Only this limit's overruns.", json_schema_extra=ID_SCHEMA)
    ] = None,
    date_from: From = '',
    date_to: To = '',
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> OverrunPage:
    """The calls limits refused, newest first, 50 a page, and how many match."""
    if limit is not None and not is_valid_id(limit):
        raise ApiError(
            422,
            f'limit: {shown_id(limit)} is not a limit id.',
            fields=[{'location': 'query.limit', 'message': 'not a limit id'}],
        )
    zone = context.settings.limits_timezone
    filters = OverrunFilters(
        limit_id=limit,
        date_from=bound(date_from, 'from', zone, end=False),
        date_to=bound(date_to, 'to', zone, end=True),
        page=page,
    )
    rows, total = await call(limits_store.overruns, context.store, filters)
    return OverrunPage(overruns=[Overrun.of(row) for row in rows], total=total)


@router.get('/api/limits/{limit_id}', response_model=Limit)
async def one_limit(limit_id: str, context: Context) -> Limit:
    """One limit with its current window's consumption and headroom."""
    require_id(limit_id, 'spending limit')
    return await call(_status, context, limit_id)


@router.patch('/api/limits/{limit_id}', response_model=Limit, responses=error_responses(409))
async def update_limit(limit_id: str, body: LimitPatch, context: Context) -> Limit:
    """Change a limit: the fields given replace its own (a new agent or preset must exist)."""
    require_id(limit_id, 'spending limit')
    if body.scope is not None or body.scope_id is not None:
        current = await call(limits_store.get, context.store, limit_id)
        scope, scope_id = body.scope or current.scope, body.scope_id or current.scope_id
        await call(check_names, context.store, context.catalog, scope, scope_id)
    row = await call(limits_store.update, context.store, context.settings, limit_id, body)
    return await call(_saved, context, row)


@router.delete('/api/limits/{limit_id}', response_model=LimitDeleted)
async def delete_limit(limit_id: str, context: Context) -> LimitDeleted:
    """Remove a limit (its overruns stay in the log)."""
    require_id(limit_id, 'spending limit')
    await call(limits_store.delete, context.store, limit_id)
    return LimitDeleted(deleted=limit_id)
