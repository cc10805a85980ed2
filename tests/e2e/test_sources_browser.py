"""The Sources page end to end: Debian's Chromium against a real `synapse serve --demo` on an empty
store.

A folder of two Markdown files and a broken PDF becomes a source through the page's form → Index
runs it on the server's task queue until the page says `done`, with 2 files indexed → the PDF is
listed as failed, with its error → the query tester ranks chunks with their scores and citations →
a configured agent on the `demo` model given the source (`rag_sources`, over the registry API)
answers "use all tools" in the playground, whose `search_documents` call is cited under the answer
→ the citation opens the chunk's text. Screenshots go to test-artifacts/screenshots/ (not
committed).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import finished, last_answer, problems, send, shoot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LEAVE = (
    '# Leave\n\nEvery employee gets twenty-five days of paid holiday a year, '
    'booked through the people team at least two weeks ahead.\n'
)
EXPENSES = '# Expenses\n\nTravel expenses are paid back within ten working days of a claim with receipts.\n'


@pytest.fixture
def server(live_server: Any) -> Any:
    return live_server(['--demo'])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two Markdown files and a `.pdf` that is no PDF at all."""
    root = tmp_path / 'handbook'
    root.mkdir()
    (root / 'leave.md').write_text(LEAVE)
    (root / 'expenses.md').write_text(EXPENSES)
    (root / 'broken.pdf').write_bytes(b'\x00\x13garbage, not a PDF\xff\xfe' * 20)
    return root


def test_index_a_folder_query_it_and_cite_it_in_the_playground(
    browser_page: Page, server: Any, folder: Path
) -> None:
    page = browser_page
    page.goto(f'{server.url}/sources')
    nav = page.get_by_role('navigation', name='Workspace').get_by_role('link', name='Sources')
    expect(nav).to_have_attribute('aria-current', 'page')

    # A folder source from the page's form: the new source's page opens, pending.
    page.get_by_role('button', name='New source').first.click()
    form = page.get_by_role('form', name='New source')
    form.get_by_label('Slug').fill('handbook')
    form.get_by_label('Name').fill('Handbook')
    expect(form.get_by_role('radio', name=re.compile('^Folder'))).to_be_checked()
    form.get_by_label('Folder', exact=True).fill(str(folder))
    form.get_by_role('button', name='Create').click()
    expect(page).to_have_url(f'{server.url}/sources/handbook')
    status = page.get_by_test_id('source-page').get_by_test_id('source-status')
    expect(status).to_have_text('pending')

    # Index: the run goes through the task queue; the page follows it to the end.
    with page.expect_response(lambda r: r.url.endswith('/api/rag/sources/handbook/index')) as queued:
        page.get_by_role('button', name='Index').click()
    assert queued.value.status == 202
    expect(status).to_have_text('done', timeout=60_000)
    facts = page.get_by_test_id('source-page').locator('dl')
    expect(facts).to_contain_text('2 files')
    source = httpx.get(f'{server.url}/api/rag/sources/handbook').json()
    assert (source['status'], source['total_files'], source['document_count']) == ('done', 3, 2), source
    assert source['chunk_count'] >= 2, source

    # The broken PDF is listed with why it failed; the two Markdown files were indexed anyway.
    failed = page.get_by_test_id('failed-file')
    expect(failed).to_have_count(1)
    expect(failed).to_contain_text('broken.pdf')
    error = httpx.get(f'{server.url}/api/rag/sources/handbook/files', params={'status': 'failed'}).json()
    [broken] = error['files']
    assert broken['identifier'] == 'broken.pdf' and broken['error'], broken
    expect(failed).to_contain_text(broken['error'])
    shoot(page, 'sources-indexed', full_page=True)

    # The query tester ranks chunks with their scores and where they came from.
    tester = page.get_by_role('region', name='Query tester')
    tester.get_by_label('Question').fill('How many days of paid holiday do employees get?')
    tester.get_by_role('button', name='Search').click()
    hits = tester.get_by_test_id('search-hit')
    expect(hits.first).to_be_visible()
    expect(hits.first.get_by_test_id('search-score')).to_have_text(re.compile(r'^\d\.\d{3}$'))
    expect(hits.first.get_by_test_id('chunk-citation')).to_contain_text('Handbook · leave.md · chunk 1/1')
    expect(hits.first.get_by_test_id('chunk-text')).to_contain_text('twenty-five days of paid holiday')
    expect(tester).to_contain_text(re.compile(r'\d+ ranked · by (similarity|the query words)'))
    shoot(page, 'sources-query-tester', full_page=True)

    # A configured agent on the demo model, given the source; "use all tools" calls search_documents.
    preset = httpx.post(f'{server.url}/api/registry/presets', json={'key': 'demo', 'model': 'demo'})
    assert preset.status_code == 201, preset.text
    agent = httpx.post(
        f'{server.url}/api/registry/agents',
        json={
            'key': 'reader',
            'name': 'Reader',
            'instructions': 'Answer from the handbook.',
            'preset_key': 'demo',
            'rag_sources': ['handbook'],
        },
    )
    assert agent.status_code == 201, agent.text

    page.goto(f'{server.url}/agents/config:reader')
    send(page, 'use all tools: paid holiday days')
    finished(page)
    answer = last_answer(page)
    expect(answer).to_contain_text('search_documents')
    citations = answer.get_by_test_id('citations')
    cited = citations.get_by_role('button', name=re.compile(r'Handbook · leave\.md · chunk 1\/1'))
    expect(cited).to_be_visible()
    shoot(page, 'sources-playground-citation')

    # The citation opens the chunk itself, read from the server.
    with page.expect_response(lambda r: '/api/rag/chunks/' in r.url) as opened:
        cited.click()
    assert opened.value.status == 200
    dialog = page.get_by_role('dialog', name=re.compile(r'Handbook · leave\.md'))
    chunk = dialog.get_by_test_id('cited-chunk')
    expect(chunk.get_by_test_id('chunk-text')).to_contain_text('twenty-five days of paid holiday a year')
    expect(chunk.get_by_test_id('chunk-citation')).to_contain_text('§ Leave')
    shoot(page, 'sources-cited-chunk')
    dialog.get_by_role('button', name='Close').click()
    expect(page.get_by_role('dialog')).to_have_count(0)
    assert problems(page) == []
