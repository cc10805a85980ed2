"""`/api/rules` on every selected database: add, list with filters, read, change, pause, remove, the
preview of a scope's block, and every refused input (422 naming the field) and unknown id (404)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from synapse_agents.settings import Settings

RULES = '/api/rules'
HEADINGS = Settings()


def add(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post(RULES, json={'tenant': 'org:acme', 'text': 'Never quote fees.', **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def test_a_rule_is_added_listed_changed_paused_and_removed(client: TestClient) -> None:
    rule = add(client, subject='case:7', priority=3, created_by='user:boss')
    assert rule['tenant'] == 'org:acme' and rule['subject'] == 'case:7' and rule['applies_to'] is None
    assert rule['enabled'] is True and rule['created_by'] == 'user:boss'
    assert rule['created_at'].endswith('Z')
    assert client.get(f'{RULES}/{rule["id"]}').json() == rule

    changed = client.patch(
        f'{RULES}/{rule["id"]}', json={'text': 'Never quote fees in writing.', 'enabled': False}
    )
    assert changed.status_code == 200
    assert changed.json()['text'] == 'Never quote fees in writing.' and changed.json()['enabled'] is False
    assert changed.json()['priority'] == 3 and changed.json()['subject'] == 'case:7'  # the rest stays
    tenant_wide = client.patch(f'{RULES}/{rule["id"]}', json={'subject': None}).json()
    assert tenant_wide['subject'] is None

    assert client.delete(f'{RULES}/{rule["id"]}').json() == {'deleted': rule['id']}
    assert client.get(f'{RULES}/{rule["id"]}').status_code == 404
    assert client.get(RULES).json() == {'rules': []}


def test_filters_and_listing_order(client: TestClient) -> None:
    personal = add(client, applies_to='user:maria', text='Bullet points.')
    late = add(client, priority=2, text='Second.')
    early = add(client, priority=1, text='First.')
    subject = add(client, subject='case:1', text='About the case.')
    other = add(client, tenant='org:beta', text='Beta only.')
    ids = [r['id'] for r in client.get(RULES, params={'tenant': 'org:acme'}).json()['rules']]
    assert ids == [early['id'], late['id'], personal['id'], subject['id']]
    assert [r['id'] for r in client.get(RULES, params={'tenant': 'org:beta'}).json()['rules']] == [
        other['id']
    ]
    only_shared = client.get(RULES, params={'tenant': 'org:acme', 'applies_to': ''}).json()['rules']
    assert personal['id'] not in [r['id'] for r in only_shared]
    tenant_wide = client.get(RULES, params={'subject': ''}).json()['rules']
    assert subject['id'] not in [r['id'] for r in tenant_wide]
    client.patch(f'{RULES}/{late["id"]}', json={'enabled': False})
    paused = client.get(RULES, params={'enabled': 'false'}).json()['rules']
    assert [r['id'] for r in paused] == [late['id']]


def test_the_preview_is_the_block_a_scope_gets(client: TestClient) -> None:
    add(client, text='Shared.')
    add(client, applies_to='user:maria', text='Maria only.')
    add(client, tenant='org:beta', text='Beta only.')
    preview = client.get(f'{RULES}/preview', params={'tenant': 'org:acme', 'actor': 'user:maria'}).json()
    assert preview['shared'] == ['Shared.'] and preview['personal'] == ['Maria only.']
    expected = (
        f'{HEADINGS.rules_shared_heading}\n- Shared.\n\n{HEADINGS.rules_personal_heading}\n- Maria only.'
    )
    assert preview['block'] == expected
    nobody = client.get(f'{RULES}/preview', params={'tenant': 'org:zeta'}).json()
    assert nobody == {'shared': [], 'personal': [], 'block': ''}


@pytest.mark.parametrize(
    ('body', 'field'),
    [
        ({'tenant': 'acme'}, 'tenant'),
        ({'tenant': ''}, 'tenant'),
        ({'tenant': 'a:b:c', 'subject': 'nocolon'}, 'subject'),
        ({'applies_to': ':42'}, 'applies_to'),
        ({'text': '   '}, 'text'),
        ({'text': 'x' * 4001}, 'text'),
        ({'text': 'nul\x00'}, 'text'),
        ({'priority': 10**9}, 'priority'),
        ({'priority': 'high'}, 'priority'),
        ({'enabled': 'maybe'}, 'enabled'),
        ({'colour': 'red'}, 'colour'),
    ],
)
def test_bad_input_is_a_422_naming_the_field(client: TestClient, body: dict[str, Any], field: str) -> None:
    response = client.post(RULES, json={'tenant': 'org:acme', 'text': 'A rule.', **body})
    assert response.status_code == 422, response.text
    error = response.json()['error']
    assert field in error['message'] or any(field in f['location'] for f in error.get('fields', []))
    assert client.get(RULES).json() == {'rules': []}  # nothing was saved


def test_unknown_ids_and_bad_changes(client: TestClient) -> None:
    for method in ('get', 'patch', 'delete'):
        kwargs = {'json': {'text': 'x'}} if method == 'patch' else {}
        response = getattr(client, method)(f'{RULES}/01a240d1-9a3d-72d6-882d-707a30e36d51', **kwargs)
        assert response.status_code == 404 and 'No rule with id' in response.json()['error']['message']
        assert getattr(client, method)(f'{RULES}/..%2F..%2Fetc', **kwargs).status_code == 404
    rule = add(client)
    refused = client.patch(f'{RULES}/{rule["id"]}', json={'tenant': None})
    assert refused.status_code == 422 and refused.json()['error']['fields'][0]['location'] == 'body.tenant'
    assert client.get(f'{RULES}/{rule["id"]}').json()['tenant'] == 'org:acme'
    bad_query = client.get(f'{RULES}/preview', params={'tenant': 'acme'})
    assert (
        bad_query.status_code == 422 and bad_query.json()['error']['fields'][0]['location'] == 'query.tenant'
    )
