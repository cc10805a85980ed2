"""The Memory page end to end: Debian's Chromium against a real `synapse serve --demo` on an empty
store, with the offline embedder.

/memory says no distiller model is named → memories added through the API are browsed by tenant
(another tenant's are not listed) → a search for a paraphrase ranks the right memory first, with
its score and its axis → forgetting one asks first, then it is gone from the store → a person's
view lists what applies to them and their three-state choice is stored. Screenshots go to
test-artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import problems, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


def add(server: Any, content: str, **axes: str) -> dict[str, Any]:
    response = httpx.post(f'{server.url}/api/memories', json={'tenant': 'firm:7', 'content': content, **axes})
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_browse_search_forget_and_a_person(browser_page: Page, server: Any) -> None:
    page = browser_page
    add(server, 'Invoices go out to clients every two weeks.')
    add(server, 'The Lisbon office closes at five.')
    maria = add(server, 'María wants answers as bullet points.', applies_to='user:maria')
    add(server, 'Invoices go out monthly.', tenant='firm:8')

    page.goto(f'{server.url}/memory')
    status = page.get_by_test_id('memory-status')
    expect(status).to_contain_text('demo')  # synapse serve --demo distils with the demo distiller
    expect(status).to_contain_text('all-MiniLM-L6-v2')
    nav = page.get_by_role('navigation', name='Workspace').get_by_role('link', name='Memory')
    expect(nav).to_have_attribute('aria-current', 'page')

    browse = page.get_by_role('search', name='Browse memories')
    browse.get_by_label('Tenant').fill('firm:7')
    browse.get_by_role('button', name='Show').click()
    rows = page.get_by_test_id('memory-row')
    expect(rows).to_have_count(3)
    expect(page.get_by_text('Invoices go out monthly.')).to_have_count(0)
    shoot(page, 'memory-browse', full_page=True)

    page.get_by_role('tab', name='Search').click()
    search = page.get_by_role('search', name='Search memories')
    search.get_by_label('Tenant').fill('firm:7')
    search.get_by_label('Actor').fill('user:maria')
    search.get_by_label('Query').fill('How often do we bill customers?')
    search.get_by_role('button', name='Search').click()
    results = page.get_by_test_id('memory-search-result')
    expect(results.first).to_contain_text('Invoices go out to clients every two weeks.')
    expect(results.first.get_by_test_id('memory-score')).to_contain_text('0.')
    expect(page.get_by_test_id('memory-search-ranking')).to_contain_text('similarity')
    expect(results.filter(has_text='María').get_by_test_id('memory-axis')).to_contain_text('user:maria')
    shoot(page, 'memory-search', full_page=True)

    lisbon = results.filter(has_text='The Lisbon office closes at five.')
    lisbon.get_by_role('button', name='Forget').click()
    dialog = page.get_by_role('alertdialog')
    expect(dialog).to_contain_text('Forget this memory?')
    dialog.get_by_role('button', name='Forget').click()
    expect(page.get_by_text('The Lisbon office closes at five.')).to_have_count(0)
    left = httpx.get(f'{server.url}/api/memories', params={'tenant': 'firm:7'}).json()['memories']
    assert 'The Lisbon office closes at five.' not in [m['content'] for m in left]

    page.get_by_role('tab', name='A person').click()
    person = page.get_by_role('form', name="Show a person's memories")
    person.get_by_label('Person').fill('user:maria')
    person.get_by_role('button', name='Show').click()
    expect(page.get_by_test_id('memory-row').filter(has_text=maria['content'])).to_be_visible()
    expect(page.get_by_role('radio', name='Never chose (uses the default: shares)')).to_be_checked()
    with page.expect_response(lambda r: r.url.endswith('/sharing') and r.request.method == 'PUT') as put:
        page.get_by_role('radio', name='Does not share').click()
    assert put.value.status == 200
    expect(page.get_by_role('radio', name='Does not share')).to_be_checked()
    sharing = f'{server.url}/api/memories/people/user%3Amaria/sharing'
    assert httpx.get(sharing).json()['share_memories'] is False
    shoot(page, 'memory-person', full_page=True)
    assert problems(page) == []
