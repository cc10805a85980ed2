"""Search snippets in the history list: where the term matched, with its offsets, on every database."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_conversations import count_queries

from chat_helpers import seed_conversation as seed
from synapse_agents.conversations.snippets import SNIPPET_LENGTH
from synapse_agents.store import Store

LIST = '/api/conversations'


def rows_by_id(client: TestClient, **params: Any) -> dict[str, dict[str, Any]]:
    body = client.get(LIST, params=params)
    assert body.status_code == 200
    return {row['id']: row for row in body.json()['conversations']}


def marked(row: dict[str, Any]) -> list[str]:
    """The parts of the snippet its offsets point at."""
    return [row['snippet'][start:end] for start, end in row['snippet_matches']]


def test_a_title_match_is_the_snippet(client: TestClient, store: Store) -> None:
    conversation = seed(store, title='Quarterly Invoice review', answer='Invoice attached')
    row = rows_by_id(client, search='invoice')[conversation]
    assert row['snippet'] == 'Quarterly Invoice review'
    assert marked(row) == ['Invoice']


def test_a_message_match_when_the_title_does_not_match(client: TestClient, store: Store) -> None:
    conversation = seed(store, title='Hello', answer='Your parcel left the DEPOT this morning.')
    row = rows_by_id(client, search='depot')[conversation]
    assert row['snippet'] == 'Your parcel left the DEPOT this morning.'
    assert marked(row) == ['DEPOT']  # case-insensitive, the text's own case


def test_a_match_deep_in_a_long_message_is_cut_on_both_sides(client: TestClient, store: Store) -> None:
    before = ' '.join(f'early{i}' for i in range(400))
    after = ' '.join(f'late{i}' for i in range(400))
    conversation = seed(store, title='Hello', answer=f'{before} the Rare Needle sits here {after}')
    row = rows_by_id(client, search='rare needle')[conversation]
    snippet = row['snippet']
    assert snippet.startswith('…') and snippet.endswith('…')
    assert len(snippet) <= SNIPPET_LENGTH + 2
    assert marked(row) == ['Rare Needle']
    words = snippet.strip('…').split(' ')
    assert words[0].startswith('early') and words[-1].startswith('late')
    assert all(word in f'{before} the Rare Needle sits here {after}'.split(' ') for word in words)


def test_every_occurrence_in_the_snippet_is_marked(client: TestClient, store: Store) -> None:
    conversation = seed(store, title='Hello', answer='Red apple, green APPLE, one more apple.')
    row = rows_by_id(client, search='Apple')[conversation]
    assert marked(row) == ['apple', 'APPLE', 'apple']


def test_a_query_of_several_words_matches_as_a_phrase(client: TestClient, store: Store) -> None:
    conversation = seed(store, title='Hello', answer='Please send the final invoice to Ann today.')
    row = rows_by_id(client, search='Final Invoice')[conversation]
    assert marked(row) == ['final invoice']
    assert row['snippet'] == 'Please send the final invoice to Ann today.'


def test_non_ascii_offsets_are_code_points(client: TestClient, store: Store) -> None:
    conversation = seed(store, title='Hello', answer='Voilà 🎉 une école, ÉCOLE')
    row = rows_by_id(client, search='école')[conversation]
    assert marked(row) == ['école', 'ÉCOLE']


def test_no_search_means_no_snippet(client: TestClient, store: Store) -> None:
    conversation = seed(store, title='Quarterly invoice')
    row = rows_by_id(client)[conversation]
    assert row.get('snippet') is None and 'snippet_matches' not in row
    assert 'snippet' in rows_by_id(client, search='invoice')[conversation]


def test_a_common_term_found_by_walking_has_snippets(
    client: TestClient, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from synapse_agents.conversations import search

    made = [seed(store, title=f'chat {i}', answer='the common word appears here') for i in range(6)]
    monkeypatch.setattr(search, 'SEARCH_CAP', 3)
    rows = rows_by_id(client, search='common word')
    assert set(rows) == set(made)
    assert all(marked(row) == ['common word'] for row in rows.values())


def test_the_search_query_count_stays_constant(client: TestClient, store: Store) -> None:
    for i in range(3):
        seed(store, title='Hello' if i else 'An answer in the title')
    params = {'search': 'answer'}
    with count_queries(store) as few:
        assert len(rows_by_id(client, **params)) == 3
    for _ in range(20):
        seed(store)
    with count_queries(store) as many:
        rows = rows_by_id(client, **params)
    assert len(rows) == 23 and all(row['snippet'] for row in rows.values())
    assert len(few) == len(many) <= 4  # the term's count, the index probe, the page, the snippets
