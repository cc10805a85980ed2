"""`synapse spend` and `synapse limits` through Typer's runner, on every selected database."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
import typer
from typer.testing import CliRunner

from spend_helpers import at, ledger_row, seed
from synapse_agents.accounting.cli import limits_app, spend_app
from synapse_agents.accounting.tables import LlmCall, SpendingLimit
from synapse_agents.registry.tables import ModelPrice, Preset, RegistryModel
from synapse_agents.store import Store

runner = CliRunner()


def command_line() -> typer.Typer:
    """The two sub-apps as `synapse` registers them."""
    cli = typer.Typer()
    cli.add_typer(spend_app, name='spend')
    cli.add_typer(limits_app, name='limits')
    return cli


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(command_line(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    """The CLI's settings: the test's database, 1 EUR = 1.08 USD, calendar days in Paris, wide tables."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('SYNAPSE_CURRENCY_RATES', '{"EUR": "1.08"}')
    monkeypatch.setenv('SYNAPSE_LIMITS_TIMEZONE', 'Europe/Paris')
    monkeypatch.setenv('COLUMNS', '200')


@pytest.fixture
def ledger(store: Store) -> None:
    seed(
        store,
        ledger_row(created=at('2026-05-01 08:00'), cost='0.1', user='customer:1'),
        ledger_row(created=at('2026-05-01 09:00'), cost='0.2', user='customer:1', agent='billing'),
        ledger_row(created=at('2026-05-01 22:30'), cost='1', currency='EUR', agent='billing'),
        ledger_row(created=at('2026-05-03 10:00'), cost=None, agent='free'),
    )


def lines(output: str) -> list[str]:
    return [' '.join(line.replace('│', ' ').split()) for line in output.splitlines()]


def test_the_spend_table_by_day_with_its_totals(ledger: None) -> None:
    code, output = invoke('spend')
    assert code == 0, output
    shown = lines(output)
    assert 'Spend by day (USD; days in Europe/Paris)' in shown
    assert '2026-05-01 2 200 40 0.3 —' in shown
    assert '2026-05-02 1 100 20 1.08 —' in shown  # 22:30 UTC is the 2nd in Paris
    assert '2026-05-03 1 100 20 unpriced 1' in shown
    assert 'Total 4 400 80 1.38 1' in shown


def test_the_spend_table_by_agent_filtered(ledger: None) -> None:
    code, output = invoke('spend', '--by', 'agent', '--from', '2026-05-01', '--to', '2026-05-02')
    assert code == 0, output
    shown = lines(output)
    assert 'billing 2 200 40 1.28 —' in shown and 'support 1 100 20 0.1 —' in shown
    assert 'Total 3 300 60 1.38 —' in shown and not any(line.startswith('free') for line in shown)
    code, output = invoke('spend', '--by', 'user', '--user', 'customer')
    assert code == 0 and 'Total 2 200 40 0.3 —' in lines(output)


def test_the_spend_json_is_the_api_answer(ledger: None) -> None:
    code, output = invoke('spend', '--by', 'model', '--json')
    assert code == 0, output
    body = json.loads(output)
    assert body['by'] == 'model' and body['currency'] == 'USD'
    assert body['rows'] == [
        {
            'key': 'gpt-x',
            'day': None,
            'calls': 4,
            'input_tokens': 400,
            'output_tokens': 80,
            'cost': '1.38',
            'unpriced_calls': 1,
        }
    ]
    assert body['totals']['cost'] == '1.38'
    assert [(point['day'], point['key'], point['cost']) for point in body['series']] == [
        ('2026-05-01', 'billing', '0.2'),
        ('2026-05-01', 'support', '0.1'),
        ('2026-05-02', 'billing', '1.08'),
        ('2026-05-03', 'free', None),
    ]


@pytest.mark.parametrize(
    ('args', 'expected'),
    [
        (('spend', '--from', 'yesterday'), "--from: 'yesterday' is not an ISO date"),
        (('spend', '--to', '2026-02-30'), "--to: '2026-02-30' is not an ISO date"),
        (('spend', '--by', 'week'), "'week' is not one of"),
    ],
)
def test_bad_spend_options_are_one_line(args: tuple[str, ...], expected: str) -> None:
    code, output = invoke(*args)
    assert code == 2 and expected in output, output


def test_limits_set_list_change_and_remove(store: Store) -> None:
    assert invoke('limits', 'list') == (0, 'No spending limits.\n')
    code, output = invoke('limits', 'set', 'user', 'customer:1', 'calendar_day', '5.50')
    assert (
        code == 0
        and output.startswith('Added limit ')
        and 'user customer:1, 5.5 USD per calendar_day.' in output
    )
    limit_id = output.split()[2].rstrip(':')
    code, output = invoke(
        'limits', 'set', 'user', 'customer:1', 'calendar_day', '7', '--currency', 'EUR', '--disabled'
    )
    assert (
        code == 0
        and output == f'Changed limit {limit_id}: user customer:1, 7 EUR per calendar_day (disabled).\n'
    )
    with store.read() as session:
        rows = list(session.query(SpendingLimit))
    assert [(row.id, row.amount, row.currency, row.enabled, row.timezone) for row in rows] == [
        (limit_id, Decimal(7), 'EUR', False, 'Europe/Paris')
    ]
    seed(store, ledger_row(created=at('2020-01-01 00:00'), agent='support'))  # an agent the ledger knows
    code, output = invoke('limits', 'set', 'agent', 'support', 'sliding_month', '100', '--timezone', 'UTC')
    assert code == 0, output
    code, output = invoke('limits', 'list')
    assert code == 0, output
    shown = lines(output)
    assert any(
        line.startswith(f'{limit_id} user customer:1 calendar_day (Europe/Paris) 7 EUR 0 7') for line in shown
    )
    assert any(' agent support sliding_month 100 USD 0 100 ' in f' {line} ' for line in shown)
    code, output = invoke('limits', 'list', '--json')
    listed = json.loads(output)['limits']
    assert [(row['scope'], row['amount'], row['enabled']) for row in listed] == [
        ('agent', '100', True),
        ('user', '7', False),
    ]
    code, output = invoke('limits', 'remove', limit_id)
    assert (code, output) == (0, f'Removed limit {limit_id} (user customer:1, calendar_day).\n')
    code, output = invoke('limits', 'remove', limit_id)
    assert code == 1 and f"No spending limit with id '{limit_id}'." in output


@pytest.mark.parametrize(
    ('args', 'code', 'expected'),
    [
        (('user', 'customer:1', 'weekly', '5'), 2, 'period: Input should be'),
        (('team', 'x', 'calendar_day', '5'), 2, 'scope: Input should be'),
        (('user', 'customer:1', 'calendar_day', '0'), 2, 'amount: expected a decimal above 0'),
        (('user', 'customer:1', 'calendar_day', 'lots'), 2, 'amount: expected a decimal above 0'),
        (('user', 'customer:1', 'calendar_day', '1e3'), 2, 'amount: expected a decimal above 0'),
        (('user', 'customer:1', 'calendar_day', '100000001'), 2, 'amount: expected a decimal above 0'),
        (('user', 'customer', 'calendar_day', '5'), 1, 'scope_id: a user is named as type:id'),
        (('user', 'c:1', 'calendar_day', '5', '--timezone', 'Mars/Base'), 1, "timezone: 'Mars/Base' is not"),
        (('user', 'c:1', 'calendar_day', '5', '--currency', 'GBP'), 1, "currency: 'GBP' has no rate"),
    ],
)
def test_a_bad_limit_is_one_line_and_stores_nothing(
    store: Store, args: tuple[str, ...], code: int, expected: str
) -> None:
    result_code, output = invoke('limits', 'set', *args)
    assert result_code == code and expected in output, output
    assert len(output.strip().splitlines()) == 1
    with store.read() as session:
        assert session.query(SpendingLimit).count() == 0


@pytest.mark.parametrize(
    'limit_id', ['nope', '01a23000-0000-7000-8000-000000000000'], ids=['word', 'unknown-id']
)
def test_removing_an_unknown_limit_is_one_line(limit_id: str) -> None:
    code, output = invoke('limits', 'remove', limit_id)
    assert code == 1 and 'No spending limit with id' in output and len(output.strip().splitlines()) == 1


@pytest.fixture
def priced_models(store: Store) -> dict[str, str]:
    """Two registry models with prices since January: one in USD, one in EUR; their price ids."""
    since = at('2026-01-01 00:00')
    usd = ModelPrice(model_key='openai:gpt-x', input_per_mtok=Decimal(2), output_per_mtok=Decimal(10),
                     currency='USD', valid_from=since)  # fmt: skip
    eur = ModelPrice(model_key='mistral:large-x', input_per_mtok=Decimal(1), output_per_mtok=Decimal(5),
                     currency='EUR', valid_from=since)  # fmt: skip
    with store.write() as session:
        session.add(RegistryModel(key='openai:gpt-x', provider_key='openai', name='gpt-x'))
        session.add(RegistryModel(key='mistral:large-x', provider_key='mistral', name='large-x'))
        session.add_all([usd, eur])
    return {'usd': usd.id, 'eur': eur.id}


def test_reprice_prices_past_calls_again_and_changes_only_what_changed(
    store: Store, priced_models: dict[str, str]
) -> None:
    unpriced, right, wrong, unknown, euro, later = seed(
        store,
        ledger_row(created=at('2026-05-01 08:00'), cost=None),
        ledger_row(
            created=at('2026-05-01 09:00'), cost='0.0004', cost_reference='0.0004', reference_currency='USD'
        ),
        ledger_row(created=at('2026-05-01 10:00'), cost='1'),
        ledger_row(
            created=at('2026-05-01 11:00'), cost=None, model='no-such-model-anywhere', provider='nobody'
        ),
        ledger_row(created=at('2026-05-02 11:00'), cost=None, model='large-x', provider='mistral'),
        ledger_row(created=at('2026-06-01 10:00'), cost=None),
    )
    # 100 input tokens at 2 per million and 20 output at 10 per million: 0.0004 USD
    code, output = invoke('spend', 'reprice', '--from', '2026-05-01', '--to', '2026-05-31', '--dry-run')
    assert code == 0, output
    assert output.splitlines() == [
        f'{unpriced}  unpriced → 0.0004 USD  (registry)',
        f'{wrong}  1 USD → 0.0004 USD  (registry)',
        f'{euro}  unpriced → 0.0002 EUR  (registry)',
        'Would change 3 of 5 calls (1 with no known price kept as they were). Dry run: nothing was written.',
    ]
    with store.read() as session:
        assert session.get(LlmCall, unpriced).cost is None  # type: ignore[union-attr]
        assert session.get(LlmCall, wrong).cost == Decimal(1)  # type: ignore[union-attr]

    code, output = invoke('spend', 'reprice', '--from', '2026-05-01', '--to', '2026-05-31')
    assert (
        code == 0
        and output.splitlines()[-1] == 'Changed 3 of 5 calls (1 with no known price kept as they were).'
    )
    with store.read() as session:
        rows = {row.id: row for row in session.query(LlmCall)}
    columns = ('cost', 'currency', 'cost_reference', 'reference_currency', 'price_source')
    expected = [Decimal('0.0004'), 'USD', Decimal('0.0004'), 'USD', 'registry']
    assert [getattr(rows[unpriced], name) for name in columns] == expected
    assert rows[unpriced].price_version.startswith(priced_models['usd'])  # type: ignore[union-attr]
    assert (rows[wrong].cost, rows[right].cost) == (Decimal('0.0004'), Decimal('0.0004'))
    # EUR at 1.08 USD: the reference cost is converted when the row is priced
    expected = [Decimal('0.0002'), 'EUR', Decimal('0.000216'), 'USD', 'registry']
    assert [getattr(rows[euro], name) for name in columns] == expected
    assert rows[unknown].cost is None and rows[later].cost is None  # no price known; outside the range

    code, output = invoke('spend', 'reprice', '--from', '2026-05-01', '--to', '2026-05-31')
    assert output == 'Changed 0 of 5 calls (1 with no known price kept as they were).\n'


@pytest.mark.parametrize(
    ('args', 'expected'),
    [
        (('--to', '2026-05-01'), "Missing option '--from'"),
        (('--from', '2026-05-01'), "Missing option '--to'"),
        (('--from', 'soon', '--to', '2026-05-01'), "--from: 'soon' is not an ISO date"),
    ],
)
def test_reprice_needs_a_range(args: tuple[str, ...], expected: str) -> None:
    code, output = invoke('spend', 'reprice', *args)
    assert code == 2 and expected in output, output


def test_the_json_listing_carries_each_limits_worst_call(store: Store) -> None:
    """`limits list --json` is GET /api/limits' answer: the most one call's output may reserve too."""
    with store.write() as session:
        session.add(RegistryModel(key='openai:gpt-x', provider_key='openai', name='gpt-x'))
        session.add(
            ModelPrice(
                model_key='openai:gpt-x',
                input_per_mtok=Decimal(2),
                output_per_mtok=Decimal(10),
                currency='USD',
                valid_from=at('2026-01-01 00:00'),
            )
        )
        session.add(Preset(key='fast', name='Fast', model='openai:gpt-x', max_tokens=500))
    code, output = invoke('limits', 'set', 'preset', 'fast', 'calendar_day', '5')
    assert code == 0, output
    code, output = invoke('limits', 'list', '--json')
    assert code == 0, output
    [listed] = json.loads(output)['limits']
    assert listed['worst_call'] == {
        'amount': '0.005',
        'currency': 'USD',
        'output_tokens': 500,
        'model': 'openai:gpt-x',
        'agent': None,
    }
