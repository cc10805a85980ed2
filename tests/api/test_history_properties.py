"""The history filters against a plain-Python reference (hypothesis), on every selected database.

Random conversations (agents, error or not, tools, last activity, titles and answers) are written
through the store's own turn writes; random combinations of search, agents, status, tools, from,
to, sort and page through `GET /api/conversations` must give exactly what filtering, sorting and
paging the same rows in Python gives, totals and page counts included.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from chat_helpers import seed_conversation
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.store import Store

AGENTS = ['app.support', 'app.billing', 'other.triage']
TOOLS = ['lookup', 'refund', 'create_ticket', 'search_kb']
WORDS = ['alpha', 'Beta', 'GAMMA', 'delta echo', '100%', 'under_score', 'x', 'Invoice 42']
NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
PAGE_SIZE = 25


@dataclass
class Row:
    id: str
    agent: str
    error: bool
    tools: frozenset[str]
    updated: datetime
    title: str
    answer: str


ROW = st.tuples(
    st.sampled_from(AGENTS),
    st.booleans(),
    st.frozensets(st.sampled_from(TOOLS), max_size=3),
    st.integers(min_value=0, max_value=60 * 24 * 60),  # minutes before NOW: 60 days
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(' '.join),
    st.lists(st.sampled_from(WORDS), max_size=3).map(' '.join),
)
# Distinct times, so the order is total without relying on ids; some histories span two pages.
ROWS = st.one_of(
    st.lists(ROW, max_size=12, unique_by=lambda row: row[3]),
    st.lists(ROW, min_size=26, max_size=45, unique_by=lambda row: row[3]),
)
DAYS = st.integers(min_value=-2, max_value=62).map(lambda d: (NOW - timedelta(days=d)).date())
ANY_MOMENT = st.integers(min_value=-60, max_value=62 * 24 * 60).map(lambda m: NOW - timedelta(minutes=m))
VALUES: dict[str, st.SearchStrategy[Any]] = {
    'search': st.one_of(
        st.sampled_from(WORDS).flatmap(lambda w: st.sampled_from([w, w.lower(), w.upper(), w[1:4]])),
        st.text('abcdexyz%_ 4', min_size=1, max_size=4),
    ),
    'agents': st.lists(st.sampled_from([*AGENTS, 'app.unknown']), min_size=1, max_size=3),
    'status': st.sampled_from(['success', 'error']),
    'tools': st.lists(st.sampled_from([*TOOLS, 'never_called']), min_size=1, max_size=3),
    'sort': st.sampled_from(['newest', 'oldest']),
    'page': st.integers(min_value=1, max_value=3),
}


def filters(rows: list[Row]) -> st.SearchStrategy[dict[str, Any]]:
    """A few filters at a time (all at once would leave nothing to compare).

    `from` and `to` are dates, or moments at a row's own time (the edge of a bound), a second
    either side of one, or anywhere.
    """
    times = [row.updated for row in rows]
    near = (
        st.tuples(st.sampled_from(times), st.sampled_from([-1, 0, 1])).map(
            lambda t: t[0] + timedelta(seconds=t[1])
        )
        if times
        else ANY_MOMENT
    )
    bounds = st.one_of(near, DAYS, near, ANY_MOMENT)  # edges half of the time
    values = {**VALUES, 'from': bounds, 'to': bounds}
    return st.sets(st.sampled_from(sorted(values)), max_size=4).flatmap(
        lambda keys: st.fixed_dictionaries({key: values[key] for key in keys})
    )


def write(store: Store, rows: list[tuple[Any, ...]]) -> list[Row]:
    ConversationRepository(store).clear()
    written = []
    for agent, error, tools, minutes, title, answer in rows:
        updated = NOW - timedelta(minutes=minutes)
        conversation_id = seed_conversation(
            store,
            agent=agent,
            error=error,
            tools=tuple(sorted(tools)),
            updated=updated,
            title=title,
            answer=answer,
        )
        written.append(Row(conversation_id, agent, error, tools, updated, title, answer))
    return written


def as_param(bound: date | datetime) -> str:
    return bound.isoformat()


def _texts(row: Row) -> tuple[str, ...]:
    return (row.title, row.answer, 'boom') if row.error else (row.title, row.answer)


def reference(rows: list[Row], query: dict[str, Any]) -> list[str]:
    """The ids `GET /api/conversations` must list (every page), in order, computed in Python."""
    kept = rows
    if term := (query.get('search') or '').strip():
        # The messages: the user's (the title), the answer, and the error card's text ('boom').
        kept = [r for r in kept if any(term.lower() in text.lower() for text in _texts(r))]
    if query.get('agents'):
        kept = [r for r in kept if r.agent in query['agents']]
    if 'status' in query:
        kept = [r for r in kept if r.error == (query['status'] == 'error')]
    if query.get('tools'):
        kept = [r for r in kept if r.tools & set(query['tools'])]
    if (start := query.get('from')) is not None:
        lower = datetime.combine(start, time.min, tzinfo=UTC) if not isinstance(start, datetime) else start
        kept = [r for r in kept if r.updated >= lower]
    if (end := query.get('to')) is not None:
        if isinstance(end, datetime):
            kept = [r for r in kept if r.updated < end]
        else:
            kept = [
                r for r in kept if r.updated < datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC)
            ]
    newest_first = query.get('sort', 'newest') == 'newest'
    return [r.id for r in sorted(kept, key=lambda r: r.updated, reverse=newest_first)]


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    # No shrinking: each step rewrites the database, and minutes of it on two cores help nobody.
    # The failing example is printed as found (the conversations and the query).
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(rows=ROWS, data=st.data())
def test_filters_sort_and_pages_match_a_reference(
    client: TestClient, store: Store, rows: list[tuple[Any, ...]], data: st.DataObject
) -> None:
    written = write(store, rows)
    for _ in range(12):
        query = data.draw(filters(written), label='query')
        params = {k: (as_param(v) if isinstance(v, date) else v) for k, v in query.items()}
        response = client.get('/api/conversations', params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        expected = reference(written, query)
        page = query.get('page', 1)
        assert body['total'] == len(expected) and body['total_exact'] is True
        assert body['pages'] == -(-len(expected) // PAGE_SIZE) and body['page'] == page
        assert [c['id'] for c in body['conversations']] == expected[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(rows=ROWS, data=st.data())
def test_common_terms_and_tool_filters_page_exactly(
    client: TestClient, store: Store, rows: list[tuple[Any, ...]], data: st.DataObject
) -> None:
    """With the search cap at 2 most terms count as common (the list is walked instead of read from
    the index), and with the tools count cap at 2 a tools filter counts only a little past its
    page: the pages must still be exact; the total may be a lower bound, never more."""
    import pytest

    from synapse_agents.conversations import history, search

    written = write(store, rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, 'SEARCH_CAP', 2)
        patch.setattr(history, 'COUNT_CAP', 2)
        for _ in range(12):
            query = data.draw(filters(written), label='query')
            if data.draw(st.booleans(), label='with search'):
                query.setdefault('search', data.draw(VALUES['search'], label='search'))
            params = {k: (as_param(v) if isinstance(v, date) else v) for k, v in query.items()}
            body = client.get('/api/conversations', params=params).json()
            expected = reference(written, query)
            page = query.get('page', 1)
            shown = [c['id'] for c in body['conversations']]
            assert shown == expected[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
            if body['total_exact']:
                assert body['total'] == len(expected)
            else:
                assert body['total'] <= len(expected)
                if shown:
                    assert body['total'] >= min(len(expected), (page - 1) * PAGE_SIZE + len(shown) + 1)
