"""The history list, in a constant number of queries, as typed rows (`rows.ConversationSummary`).

`list_conversations` reads only `conversations` (its counters are kept in step by every write),
plus a correlated `EXISTS` on `tool_invocations` for the tools filter and the search index for
`search` (see `search.py`). The agent, status, date, origin, scope (tenant, actor, subject) and
fork filters are plain conditions on `conversations` (each scope part and `forked_from_id` has its
own index), so they add no statement. Statements per call, whatever the data size: two for a plain
or filtered list (the total, the page); two for a tools filter (the page, then its count capped at
`COUNT_CAP` rows past the page; one on the last page); for a search, the index probe (titles and
messages in one statement), then the page with its total, or for a common term the walk with its
lower bound, and more when a walk finds the term sparse and goes back to the index — one more when
a page past the end is asked for. The route adds one statement for the search snippets
(`snippets.py`).

A conversation's replay is `thread.py`; the API's shape of both is `web/routes/schemas.py`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import String, any_, bindparam, func, literal_column, select, union_all
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from .rows import SUMMARY_FIELDS, ConversationSummary, summary_of
from .search import WIDE_CAP, SearchProbe, contains_condition, likely_common, probe
from .tables import Conversation, Message, ToolInvocation

PAGE_SIZE = 25

if TYPE_CHECKING:
    from ..store.repository import Store


ScopeFilter = tuple[str, str | None]
"""A scope part to match: `(type, id)`, or `(type, None)` for every id of that type."""


@dataclass
class ConversationFilters:
    """The history list's query parameters, parsed."""

    search: str | None = None
    agents: list[str] = field(default_factory=list)
    status: str | None = None
    tools: list[str] = field(default_factory=list)
    date_from: datetime | None = None
    date_to: datetime | None = None
    origins: list[str] = field(default_factory=list)
    tenant: ScopeFilter | None = None
    actor: ScopeFilter | None = None
    subject: ScopeFilter | None = None
    forked_from: str | None = None
    """Only the forks of this conversation."""
    newest_first: bool = True
    page: int = 1


LIST_COLUMNS = tuple(getattr(Conversation, name) for name in SUMMARY_FIELDS)
"""The columns of a `ConversationSummary`, in its field order."""


def list_conversations(
    store: Store, filters: ConversationFilters
) -> tuple[list[ConversationSummary], int, bool]:
    """One page of conversations matching `filters`, how many match, and whether that count is exact.

    The page is always exact. The count is a lower bound only on a page that is not the last one,
    for a search whose term is common (more than `search.SEARCH_CAP` matching messages or titles)
    or a tools filter with more than `COUNT_CAP` matches past the page.
    Blocking: call it from a thread.
    """
    conditions = _filter_conditions(filters)
    page = max(filters.page, 1)
    with store.read() as session:
        if filters.search:
            if likely_common(session, store.dialect, filters.search):
                found = SearchProbe([], complete=False)
            else:
                found = probe(session, store.dialect, filters.search)
            if not found.complete:
                walked = _walk(session, store.dialect, conditions, filters, found)
                if walked is not None:
                    return walked
                found = probe(session, store.dialect, filters.search, WIDE_CAP)
                if not found.complete:
                    walked = _walk(session, store.dialect, conditions, filters, found, budget=None)
                    assert walked is not None
                    return walked
            if not found.ids:
                return [], 0, True
            conditions.append(_id_in(store.dialect, found.ids))
            # The matching set is computed once: the window count rides along with the page.
            rows = session.execute(
                _with_total(store.dialect, conditions, filters.newest_first, page, by_ids=True)
            ).all()
            if rows:
                return [summary_of(row) for row in rows], int(rows[0].total), True
            total = session.scalar(select(func.count()).select_from(Conversation).where(*conditions)) or 0
            return [], total, True
        if filters.tools:
            return _tools_page(session, store.dialect, filters, conditions, page)
        total = session.scalar(select(func.count()).select_from(Conversation).where(*conditions)) or 0
        rows = session.execute(
            select(*LIST_COLUMNS)
            .where(*conditions)
            .order_by(*_order(Conversation, filters.newest_first))
            .limit(PAGE_SIZE)
            .offset((page - 1) * PAGE_SIZE)
        ).all()
    return [summary_of(row) for row in rows], total, True


COUNT_CAP = 1000
"""How far past the current page a tools-filtered list counts its matches (see `_tools_page`)."""


def _tools_page(
    session: Session, dialect: str, filters: ConversationFilters, conditions: list[Any], page: int
) -> tuple[list[ConversationSummary], int, bool]:
    """A page filtered by tool, and its count up to `COUNT_CAP` rows past the page.

    The tools filter is a correlated `EXISTS` per conversation; an exact count would test every
    conversation the other filters leave (tens of thousands in a big store, well over 100 ms) just
    to print a number. The page walks the list in order and stops one row past it; the count stops
    `COUNT_CAP` rows later, and is exact whenever fewer match (the total is a lower bound only
    when there are more; then `total_exact` is false, shown as "1,025+")."""
    offset = (page - 1) * PAGE_SIZE
    order = _order(Conversation, filters.newest_first)
    if dialect == 'sqlite' and len(filters.agents) > 1:
        # SQLite would read every conversation of these agents, test each, then sort them; one
        # walk per agent down its (agent_key, updated_at) index, merged, stops early instead.
        others = _filter_conditions(replace(filters, agents=[]))
        walks = [
            select(*LIST_COLUMNS)
            .where(Conversation.agent_key == agent, *others)
            .order_by(*order)
            .limit(offset + PAGE_SIZE + 1)
            for agent in dict.fromkeys(filters.agents)
        ]
        # Each walk is wrapped in a subquery: SQLite allows no ORDER BY/LIMIT on a UNION member.
        merged = union_all(*(select(walk.subquery()) for walk in walks)).subquery()
        query = select(*merged.c).order_by(*_order(merged.c, filters.newest_first))
    else:
        query = select(*LIST_COLUMNS).where(*conditions).order_by(*order)
    rows = session.execute(query.limit(PAGE_SIZE + 1).offset(offset)).all()
    shown = [summary_of(row) for row in rows[:PAGE_SIZE]]
    if rows and len(rows) <= PAGE_SIZE:
        return shown, offset + len(rows), True  # the last page: everything before it matched
    limit = offset + PAGE_SIZE + COUNT_CAP
    capped = select(literal_column('1')).select_from(Conversation).where(*conditions).limit(limit).subquery()
    total = session.scalar(select(func.count()).select_from(capped)) or 0
    return shown, total, total < limit


def _filter_conditions(filters: ConversationFilters) -> list[Any]:
    """Every filter but the search, as conditions on `conversations`."""
    conditions: list[Any] = []
    if filters.agents:
        conditions.append(Conversation.agent_key.in_(filters.agents))
    if filters.status is not None:
        conditions.append(Conversation.has_error.is_(filters.status == 'error'))
    if filters.date_from is not None:
        conditions.append(Conversation.updated_at >= filters.date_from)
    if filters.date_to is not None:
        conditions.append(Conversation.updated_at < filters.date_to)
    if filters.origins:
        conditions.append(Conversation.origin.in_(filters.origins))
    for axis in ('tenant', 'actor', 'subject'):
        wanted: ScopeFilter | None = getattr(filters, axis)
        if wanted is not None:
            # Each is an equality on the leading columns of its (type, id, updated_at) index.
            kind, ident = wanted
            conditions.append(getattr(Conversation, f'{axis}_type') == kind)
            if ident is not None:
                conditions.append(getattr(Conversation, f'{axis}_id') == ident)
    if filters.forked_from is not None:
        conditions.append(Conversation.forked_from_id == filters.forked_from)
    if filters.tools:
        # A correlated EXISTS: the other filters narrow the conversations first, then each is probed
        # through the (conversation, started_at) index (measured faster than IN on both dialects).
        conditions.append(
            select(ToolInvocation.id)
            .where(ToolInvocation.conversation_id == Conversation.id, ToolInvocation.name.in_(filters.tools))
            .exists()
        )
    return conditions


WALK_BUDGET = 100
"""Conversations a walk may test, beyond four per row it needs, before the term counts as sparse
(under a quarter of the filtered conversations match) and the search goes back to the index
(`search.WIDE_CAP`). Either way the page is exact; this only picks the faster way."""


def _walk(
    session: Session,
    dialect: str,
    conditions: list[Any],
    filters: ConversationFilters,
    found: SearchProbe,
    *,
    budget: int | None = WALK_BUDGET,
) -> tuple[list[ConversationSummary], int, bool] | None:
    """The page of a search for a common term: the conversations in list order, with every filter,
    each tested for the term, stopping one row past the page. None when `budget` conversations were
    tested without filling the page (the term is sparse here: the index is the better way).

    The total is exact when the walk reached the end; otherwise it is a lower bound: the larger of
    what the walk saw and how many of the probe's conversations pass the filters (computed in the
    same statement)."""
    assert filters.search is not None
    offset = (max(filters.page, 1) - 1) * PAGE_SIZE
    order = _order(Conversation, filters.newest_first)
    scope = list(conditions)
    if budget is not None:
        limit = budget + 4 * (offset + PAGE_SIZE + 1)
        window = select(Conversation.id).where(*conditions).order_by(*order).limit(limit)
        scope.append(Conversation.id.in_(window.scalar_subquery()))
    probed = (
        select(func.count())
        .select_from(Conversation)
        .where(_id_in(dialect, found.ids), *conditions)
        .scalar_subquery()
        .label('probed')
    )
    rows = session.execute(
        select(*LIST_COLUMNS, probed)
        .where(*scope, contains_condition(dialect, filters.search))
        .order_by(*order)
        .limit(PAGE_SIZE + 1)
        .offset(offset)
    ).all()
    shown = [summary_of(row) for row in rows[:PAGE_SIZE]]
    if len(rows) > PAGE_SIZE:
        return shown, max(offset + len(rows), int(rows[0].probed)), False
    if budget is not None:
        tested = session.scalar(select(func.count()).select_from(window.subquery())) or 0
        if tested >= limit:
            return None  # the budget ran out before the page was full
    if rows or offset == 0:
        return shown, offset + len(rows), True  # the walk reached the end: everything is known
    return [], 0, False  # past the end of a common term's matches: how far is unknown


def _order(columns: Any, newest_first: bool) -> tuple[Any, Any]:
    """`updated_at`, then `id`, both descending (newest first) or ascending."""
    if newest_first:
        return columns.updated_at.desc(), columns.id.desc()
    return columns.updated_at.asc(), columns.id.asc()


def _with_total(dialect: str, conditions: list[Any], newest_first: bool, page: int, *, by_ids: bool) -> Any:
    """The page with `count(*) OVER ()` as `total`.

    For a search on PostgreSQL the matching rows are fetched by id first (`OFFSET 0` keeps the
    planner from walking the whole `updated_at` index and filtering every row against the ids).
    """
    offset = (page - 1) * PAGE_SIZE
    if dialect == 'postgresql' and by_ids:
        matched = select(*LIST_COLUMNS).where(*conditions).offset(0).subquery()
        columns = [matched.c[column.key] for column in LIST_COLUMNS]
        return (
            select(*columns, func.count().over().label('total'))
            .order_by(*_order(matched.c, newest_first))
            .limit(PAGE_SIZE)
            .offset(offset)
        )
    return (
        select(*LIST_COLUMNS, func.count().over().label('total'))
        .where(*conditions)
        .order_by(*_order(Conversation, newest_first))
        .limit(PAGE_SIZE)
        .offset(offset)
    )


def _id_in(dialect: str, ids: list[str]) -> Any:
    """`conversations.id IN ids` with one parameter, however many ids (thousands of bound values cost
    more to compile and bind than the query takes): an array on PostgreSQL, a JSON array read by
    `json_each` on SQLite."""
    if dialect == 'postgresql':
        return Conversation.id == any_(bindparam('search_ids', ids, type_=ARRAY(String())))
    each = func.json_each(bindparam('search_ids', json.dumps(ids), type_=String())).table_valued('value')
    return Conversation.id.in_(select(each.c.value))


def attachment_references(attachments: Any) -> list[dict[str, Any]]:
    """The well-formed file references of a message row's `attachments` (a broken row has none)."""
    if not isinstance(attachments, list):
        return []
    return [item for item in attachments if isinstance(item, dict) and type(item.get('index')) is int]


def attachment_reference(store: Store, message_id: str, index: int) -> tuple[str, dict[str, Any]] | None:
    """The conversation id and the stored reference of a message's `index`-th attachment."""
    with store.read() as session:
        row = session.execute(
            select(Message.conversation_id, Message.attachments).where(Message.id == message_id)
        ).first()
    if row is None:
        return None
    for reference in attachment_references(row.attachments):
        if reference['index'] == index:
            return row.conversation_id, dict(reference)
    return None
