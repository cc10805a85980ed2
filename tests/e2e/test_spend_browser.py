"""The Spend page end to end: Debian's Chromium against a real `synapse serve --demo` on a temporary
home whose store was seeded, before the server started, with ledger rows (one of them unpriced) and
an overrun.

/spend → the chart has a bar per day and the totals row says what the seeded rows add up to, to the
last digit → a bar's tooltip gives that day's exact amounts → stacking by model swaps the legend →
a new limit on an agent, picked from the list, shows its headroom bar, filled by that agent's seeded
spend → the overrun log lists the seeded overrun → limits picked by an agent's name and by a tenant
the ledger has seen show the most one call may reserve (the demo model is priced in the registry).
Screenshots, in both themes, go to test-artifacts/screenshots/ (not
committed).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from browser_helpers import problems, shoot
from synapse_agents.accounting.tables import LlmCall, SpendingOverrun
from synapse_agents.registry.tables import ModelPrice, RegistryModel
from synapse_agents.store import Store, upgrade

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOW = datetime.now(UTC).replace(microsecond=0)
EARLIER = NOW - timedelta(days=2)
LATER = NOW - timedelta(days=1)


@dataclass(frozen=True)
class Call:
    """One seeded ledger row."""

    at: datetime
    agent: str
    model: str
    input_tokens: int
    output_tokens: int
    cost: Decimal | None


CALLS = [
    Call(EARLIER, 'demo.support', 'gpt-5-mini', 1200, 300, Decimal('0.0123')),
    Call(EARLIER, 'demo.triage', 'gpt-5', 800, 100, Decimal('0.00042')),
    Call(LATER, 'demo.support', 'gpt-5-mini', 500, 50, Decimal('0.25')),
    Call(LATER, 'demo.triage', 'local-llama', 400, 40, None),
]
"""Two days, two agents, three models; the last call has no known price."""
DEMO_MAX_OUTPUT = 2000
DEMO_OUTPUT_PER_MTOK = Decimal(10)
WORST_CALL = DEMO_MAX_OUTPUT * DEMO_OUTPUT_PER_MTOK / 1_000_000
"""The demo model's most output tokens at its registry price: what one demo agent's call reserves
for its output."""


def seed(home: Path) -> None:
    """Write the ledger rows and one overrun into the store the server will open."""
    home.mkdir(parents=True, exist_ok=True)
    store = Store.open(f'sqlite:///{home / "synapse.db"}', home / 'attachments')
    upgrade(store.engine)
    with store.write() as session:
        for call in CALLS:
            session.add(
                LlmCall(
                    module='chat',
                    agent_key=call.agent,
                    provider='openai',
                    model=call.model,
                    input_tokens=call.input_tokens,
                    output_tokens=call.output_tokens,
                    cost=call.cost,
                    currency=None if call.cost is None else 'USD',
                    cost_reference=call.cost,
                    reference_currency=None if call.cost is None else 'USD',
                    price_source=None if call.cost is None else 'genai-prices',
                    user='user:42',
                    tenant='firm:7',
                    created_at=call.at,
                )
            )
        session.add(
            SpendingOverrun(
                scope='tenant',
                scope_id='firm:7',
                period='calendar_day',
                limit_amount=Decimal('5'),
                consumed=Decimal('4.9'),
                estimated=Decimal('0.35'),
                overrun=Decimal('0.25'),
                currency='USD',
                user='user:42',
                tenant='firm:7',
                agent_key='demo.support',
                created_at=NOW - timedelta(hours=1),
            )
        )
        session.add(
            RegistryModel(
                key='synapse:synapse-demo',
                provider_key='synapse',
                name='synapse-demo',
                max_output_tokens=DEMO_MAX_OUTPUT,
            )
        )
        session.add(
            ModelPrice(
                model_key='synapse:synapse-demo',
                input_per_mtok=Decimal(1),
                output_per_mtok=DEMO_OUTPUT_PER_MTOK,
                valid_from=NOW - timedelta(days=30),
            )
        )
    store.close()


@pytest.fixture
def server(live_server: Any) -> Any:
    seed(Path(os.environ['SYNAPSE_HOME']))
    return live_server(['--demo'])


@pytest.fixture
def page(browser_page: Page, server: Any) -> Page:
    browser_page.goto(f'{server.url}/spend')
    return browser_page


def dollars(amount: Decimal) -> str:
    """Every digit of an amount, as the page's exact figures show it."""
    text = format(amount.normalize(), 'f')
    whole, _dot, fraction = text.partition('.')
    return f'${int(whole):,}.{fraction.ljust(2, "0")}'


def radio(page: Page, group: str, name: str) -> Any:
    return page.get_by_role('radiogroup', name=group).get_by_role('radio', name=name)


def test_spend_chart_totals_limits_and_overruns(page: Page, server: Any) -> None:
    priced = [call.cost for call in CALLS if call.cost is not None]
    total = sum(priced, Decimal(0))
    first_day = sum((c.cost for c in CALLS if c.at == EARLIER and c.cost is not None), Decimal(0))
    support = sum((c.cost for c in CALLS if c.agent == 'demo.support' and c.cost is not None), Decimal(0))

    # The chart: one bar per seeded day, stacked by agent; the legend names both agents.
    chart = page.get_by_test_id('spend-chart')
    expect(chart).to_be_visible()
    bars = chart.get_by_test_id('spend-bar')
    expect(bars).to_have_count(2)
    assert [bars.nth(i).get_attribute('data-day') for i in range(2)] == [
        EARLIER.date().isoformat(),
        LATER.date().isoformat(),
    ]
    legend = chart.get_by_test_id('spend-legend')
    expect(legend).to_contain_text('demo.support')
    expect(legend).to_contain_text('demo.triage')

    # The totals row is the seeded rows' sum: calls, tokens, the cost to the last digit, unpriced.
    totals = page.get_by_test_id('spend-totals')
    cells = totals.get_by_role('cell')
    expect(cells).to_have_text(
        [
            'Total',
            str(len(CALLS)),
            f'{sum(c.input_tokens for c in CALLS):,}',
            f'{sum(c.output_tokens for c in CALLS):,}',
            re.compile(r'^\$0\.26'),
            '1',
        ]
    )
    expect(totals.get_by_test_id('spend-cost')).to_have_attribute('title', dollars(total))
    reported = httpx.get(f'{server.url}/api/spend').json()
    assert Decimal(reported['totals']['cost']) == total
    assert reported['totals']['unpriced_calls'] == 1

    # A bar's tooltip: that day's amounts, exactly.
    bars.first.hover()
    tooltip = chart.get_by_test_id('spend-tooltip')
    expect(tooltip).to_be_visible()
    expect(tooltip.get_by_test_id('spend-tooltip-total')).to_have_text(dollars(first_day))
    expect(tooltip).to_contain_text(dollars(Decimal('0.00042')))
    shoot(page, 'spend', full_page=True)

    # Stacked by model: the legend names the models, the URL says so.
    with page.expect_response(lambda r: '/api/spend?' in r.url and 'stack=model' in r.url) as stacked:
        radio(page, 'Stack by', 'Model').click()
    assert stacked.value.status == 200
    expect(page).to_have_url(re.compile(r'/spend\?stack=model$'))
    items = legend.get_by_role('listitem')
    expect(items).to_have_count(3)
    expect(items).to_have_text(
        [re.compile(r'gpt-5-mini'), re.compile(r'gpt-5\$'), re.compile(r'local-llama\s*unpriced')]
    )
    expect(legend).not_to_contain_text('demo.support')
    # Grouped by model: the model no price is known for reads "unpriced", never $0.
    radio(page, 'Group by', 'Model').click()
    expect(page).to_have_url(re.compile(r'/spend\?by=model&stack=model$'))
    llama = page.locator('[data-testid="spend-row"][data-key="local-llama"]')
    expect(llama.get_by_test_id('spend-cost')).to_have_text('unpriced')
    page.reload()
    expect(radio(page, 'Stack by', 'Model')).to_have_attribute('aria-checked', 'true')
    expect(radio(page, 'Group by', 'Model')).to_have_attribute('aria-checked', 'true')

    # A limit on one agent: its headroom bar is filled by that agent's spend over the last 30 days.
    page.get_by_role('tab', name='Limits').click()
    expect(page).to_have_url(re.compile(r'tab=limits'))
    page.get_by_role('button', name='New limit').click()
    form = page.get_by_role('form', name='New limit')
    form.get_by_label('Scope').select_option('agent')
    # Applies to is a list: the agent the ledger has seen is one of its options.
    expect(form.get_by_label('Applies to').locator('option[value="demo.support"]')).to_have_count(1)
    form.get_by_label('Applies to').select_option('demo.support')
    form.get_by_label('Period').select_option('sliding_month')
    form.get_by_label('Amount').fill('1')
    form.get_by_label('Time zone').fill('Mars/Base')
    with page.expect_response(
        lambda r: r.url.endswith('/api/limits') and r.request.method == 'POST'
    ) as refused:
        form.get_by_role('button', name='Create').click()
    assert refused.value.status == 422
    expect(form.get_by_label('Time zone')).to_have_attribute('aria-invalid', 'true')
    expect(form).to_contain_text('is not an IANA time zone')
    shoot(page, 'spend-limit-form', full_page=True)
    form.get_by_label('Time zone').fill('Europe/Paris')
    with page.expect_response(
        lambda r: r.url.endswith('/api/limits') and r.request.method == 'POST'
    ) as created:
        form.get_by_role('button', name='Create').click()
    assert created.value.status == 201
    expect(form).to_have_count(0)
    row = page.get_by_test_id('limit-row')
    expect(row).to_have_count(1)
    percent = round(support * 100)
    meter = row.get_by_role('meter')
    expect(meter).to_have_attribute('aria-valuenow', str(percent))
    expect(row.get_by_test_id('headroom-text')).to_have_text(f'$0.2623 of $1.00 ({percent}%)')
    expect(row.get_by_test_id('limit-window')).to_contain_text('(Europe/Paris)')
    limit = httpx.get(f'{server.url}/api/limits').json()['limits'][0]
    assert Decimal(limit['consumed']) == support
    assert Decimal(limit['headroom']) == Decimal(1) - support
    shoot(page, 'spend-limits', full_page=True)

    # The overrun log: the seeded overrun, with what it went over by.
    page.get_by_role('tab', name='Overruns').click()
    overruns = page.get_by_test_id('overrun-row')
    expect(overruns).to_have_count(1)
    expect(overruns.first).to_contain_text('firm:7')
    expect(overruns.first.get_by_test_id('overrun-overrun')).to_have_text('$0.25')
    expect(page.get_by_test_id('overrun-count')).to_have_text('1\u20131 of 1')
    shoot(page, 'spend-overruns', full_page=True)
    # This limit's overruns only: none (the seeded one belongs to no limit).
    page.get_by_role('tab', name='Limits').click()
    page.get_by_test_id('limit-row').get_by_role('button', name='Overruns').click()
    expect(page).to_have_url(re.compile(rf'\?tab=overruns&.*limit={limit["id"]}$'))
    expect(page.get_by_test_id('overrun-row')).to_have_count(0)
    expect(page.get_by_text('No call was refused')).to_be_visible()

    # Limits picked from the lists show the most one call may reserve: an agent picked by its name,
    # then a tenant the ledger has seen (any agent may serve it: the dearest of them).
    worst = f'One call reserves up to ${WORST_CALL.normalize():f} + input'
    page.get_by_role('tab', name='Limits').click()
    page.get_by_role('button', name='New limit').click()
    form = page.get_by_role('form', name='New limit')
    form.get_by_label('Scope').select_option('agent')
    applies_to = form.get_by_label('Applies to')
    expect(applies_to.get_by_role('option', name='support_agent')).to_have_count(1)
    applies_to.select_option(label='support_agent')
    form.get_by_label('Period').select_option('calendar_day')
    form.get_by_label('Amount').fill('5')
    with page.expect_response(
        lambda r: r.url.endswith('/api/limits') and r.request.method == 'POST'
    ) as created:
        form.get_by_role('button', name='Create').click()
    assert created.value.status == 201
    agent_limit = created.value.json()
    assert agent_limit['scope_id'].endswith('support-agent')
    assert Decimal(agent_limit['worst_call']['amount']) == WORST_CALL
    rows = page.get_by_test_id('limit-row')
    expect(rows).to_have_count(2)
    picked = rows.nth(1)
    expect(picked.get_by_test_id('limit-agent')).to_have_text('support_agent')
    expect(picked.get_by_test_id('limit-agent')).to_have_attribute('title', agent_limit['scope_id'])
    expect(picked.get_by_test_id('limit-worst')).to_have_text(
        f'{worst} ({DEMO_MAX_OUTPUT:,} output tokens of synapse:synapse-demo, support_agent)'
    )

    page.get_by_role('button', name='New limit').click()
    form = page.get_by_role('form', name='New limit')
    form.get_by_label('Scope').select_option('tenant')
    expect(form.get_by_test_id('applies-to-seen').locator('option[value="firm:7"]')).to_have_count(1)
    form.get_by_label('Applies to').fill('firm:7')
    form.get_by_label('Amount').fill('50')
    with page.expect_response(
        lambda r: r.url.endswith('/api/limits') and r.request.method == 'POST'
    ) as created:
        form.get_by_role('button', name='Create').click()
    assert created.value.status == 201
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_contain_text('tenant firm:7')
    expect(rows.nth(2).get_by_test_id('limit-worst')).to_contain_text(worst)
    shoot(page, 'spend-limits-worst', full_page=True)
    assert problems(page) == [f'422 {server.url}/api/limits']
