"""Money is exact: costs are `Decimal` in Python and sums of them are exact on both databases."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import func, inspect, select, text

from synapse_agents.accounting.tables import LlmCall
from synapse_agents.conversations.tables import Conversation, Message
from synapse_agents.conversations.totals import reconcile_totals
from synapse_agents.store import Store, upgrade
from synapse_agents.store.engine import writer
from synapse_agents.store.ids import new_id
from synapse_agents.store.migrate import current_revision, downgrade, head_revision


def a_conversation(store: Store) -> str:
    conversation = new_id()
    with store.write() as session:
        session.add(Conversation(id=conversation, agent_key='a'))
    return conversation


def test_ten_ledger_rows_of_a_tenth_total_exactly_one(store: Store) -> None:
    conversation = a_conversation(store)
    with store.write() as session:
        for _ in range(10):
            session.add(LlmCall(conversation_id=conversation, cost=Decimal('0.1')))
    with writer(store.engine).begin() as connection:
        reconcile_totals(connection, conversation)
    with store.read() as session:
        total = session.get(Conversation, conversation)
        assert total is not None
        assert isinstance(total.cost, Decimal) and total.cost == Decimal('1.0')
        summed = session.scalar(select(func.sum(LlmCall.cost)))
        assert isinstance(summed, Decimal) and summed == Decimal('1')


def test_a_conversations_cost_never_adds_two_currencies(store: Store) -> None:
    conversation = a_conversation(store)

    def call(cost: str, currency: str, reference: str | None) -> LlmCall:
        return LlmCall(
            conversation_id=conversation,
            cost=Decimal(cost),
            currency=currency,
            cost_reference=Decimal(reference) if reference is not None else None,
            reference_currency='USD' if reference is not None else None,
            price_version='v1',
        )

    with store.write() as session:
        session.add(call('1', 'USD', '1'))
        session.add(call('2', 'EUR', '2.2'))  # 1 EUR = 1.10 USD
        session.add(call('5', 'GBP', None))  # no rate for GBP: not added as if it were USD
    with writer(store.engine).begin() as connection:
        reconcile_totals(connection, conversation)
    with store.read() as session:
        total = session.get(Conversation, conversation)
        assert total is not None and total.cost == Decimal('3.2')


def test_a_price_with_ten_decimal_places_survives_a_round_trip(store: Store) -> None:
    conversation = a_conversation(store)
    prices = [Decimal('0.0000000001'), Decimal('1234.5678901234'), Decimal('0.0000025')]
    with store.write() as session:
        for price in prices:
            session.add(LlmCall(conversation_id=conversation, cost=price))
            session.add(Message(conversation_id=conversation, role='assistant', cost=price))
    with store.read() as session:
        for column in (LlmCall.cost, Message.cost):
            assert sorted(cost for cost in session.scalars(select(column)) if cost is not None) == sorted(
                prices
            )
    with writer(store.engine).begin() as connection:
        reconcile_totals(connection, conversation)
    with store.read() as session:
        total = session.get(Conversation, conversation)
        assert total is not None and total.cost == Decimal('1234.5678926235')


_OLD_ROWS = [
    'INSERT INTO conversations (id, agent_key, agent_name, title, origin, has_error, message_count,'
    ' tool_count, input_tokens, output_tokens, cost, created_at, updated_at)'
    " VALUES ('c', 'a', 'a', 't', 'playground', true, 6, 0, 0, 0, 0.30000000000000004,"
    " '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
    *(
        'INSERT INTO messages (id, conversation_id, role, status, content, attachments, meta, details,'
        f" cost, created_at) VALUES ('{id_}', 'c', '{role}', '{status}', '', '[]', '{{}}', '{{}}', {cost},"
        " '2026-01-01 00:00:00')"
        for id_, role, status, cost in [
            ('01', 'user', 'complete', 'NULL'),
            ('02', 'assistant', 'interrupted', '0.1'),  # followed by its error card: it failed
            ('03', 'notice', 'complete', 'NULL'),
            ('04', 'error', 'complete', 'NULL'),
            ('05', 'user', 'complete', 'NULL'),
            ('06', 'assistant', 'interrupted', '0.000035'),  # cut off: no error card
        ]
    ),
    'INSERT INTO llm_calls (id, conversation_id, module, input_tokens, output_tokens, cache_read_tokens,'
    ' cache_write_tokens, reasoning_tokens, cost, created_at)'
    " VALUES ('l', 'c', 'chat', 0, 0, 0, 0, 0, 0.1, '2026-01-01 00:00:00')",
]


def test_upgrading_from_0003_keeps_costs_and_tells_failed_from_interrupted(store: Store) -> None:
    downgrade(store.engine, '0003')
    try:
        with store.engine.begin() as connection:
            for statement in _OLD_ROWS:
                connection.execute(text(statement))
        upgrade(store.engine)
        assert current_revision(store.engine) == head_revision()
        with store.read() as session:
            rows = session.execute(
                select(Message.id, Message.status, Message.cost).order_by(Message.id)
            ).all()
            conversation = session.get(Conversation, 'c')
            ledger = session.scalar(select(LlmCall.cost))
        assert [(r.status, r.cost) for r in rows if r.id in ('02', '06')] == [
            ('failed', Decimal('0.1')),
            ('interrupted', Decimal('0.000035')),
        ]
        assert conversation is not None and conversation.cost == Decimal('0.3')
        assert ledger == Decimal('0.1')
        assert 'store_instances' in inspect(store.engine).get_table_names()
    finally:
        upgrade(store.engine)
