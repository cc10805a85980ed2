"""The accounting tables: the ledger (`llm_calls`), spending limits, the reservations in-flight
model calls hold against them, and the overrun log.

The ledger has one row per model request and is the books: declared in the table registry as naming
its conversation but `kept`, so deleting, pruning or clearing conversations never removes a row.

A limit caps what one tenant, user, agent or preset may spend per period. Before a model call, its
worst-case cost is reserved (`spending_reservations`) against every limit that applies, in one
transaction that the database serialises per limit; the call's ledger row replaces its reservation
when it ends. A call refused by a limit writes a `spending_overruns` row. Migration 0007 creates them.

`spend_buckets` holds the ledger's running totals per scope, hour and day (migration 0018): the
database's own triggers on `llm_calls` keep them, so a limit's window is summed from a bounded
number of rows however many calls it holds (`accounting/buckets.py`).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Boolean, Index, Integer, PrimaryKeyConstraint, String
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, utcnow
from ..store.tables import register_table


class SpendingLimit(Base):
    """At most `amount` (in `currency`) per `period` for one tenant, user, agent or preset."""

    __tablename__ = 'spending_limits'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    scope: Mapped[str] = mapped_column(String(16))
    """`tenant`, `user`, `agent` or `preset`."""
    scope_id: Mapped[str] = mapped_column(String(511))
    """`type:id` for a tenant or user, the agent's slug, the preset's key."""
    period: Mapped[str] = mapped_column(String(16))
    """`calendar_day`, `calendar_month` (in `timezone`), `sliding_day` or `sliding_month`."""
    amount: Mapped[Decimal] = mapped_column()
    currency: Mapped[str] = mapped_column(String(8), default='USD')
    timezone: Mapped[str] = mapped_column(String(64), default='UTC')
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index('ix_spending_limits_scope', 'scope', 'scope_id'),)


class SpendingReservation(Base):
    """The worst-case cost of one model call in flight, held against the limits that apply to it."""

    __tablename__ = 'spending_reservations'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    run_id: Mapped[str | None] = mapped_column(String(36))
    tenant: Mapped[str | None] = mapped_column(String(511))
    user: Mapped[str | None] = mapped_column(String(511))
    agent_key: Mapped[str | None] = mapped_column(String(255))
    preset: Mapped[str | None] = mapped_column(String(100))
    amount: Mapped[Decimal] = mapped_column()
    """In the reference currency."""
    currency: Mapped[str] = mapped_column(String(8), default='USD')
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
    """A reservation whose process died is released by the sweep after this."""

    __table_args__ = (Index('ix_spending_reservations_expires', 'expires_at'),)


class SpendingOverrun(Base):
    """A model call a limit refused: what the limit was, what was spent, what the call would cost."""

    __tablename__ = 'spending_overruns'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    limit_id: Mapped[str | None] = mapped_column(String(36))
    user: Mapped[str | None] = mapped_column(String(511))
    tenant: Mapped[str | None] = mapped_column(String(511))
    scope: Mapped[str] = mapped_column(String(16))
    scope_id: Mapped[str] = mapped_column(String(511))
    period: Mapped[str] = mapped_column(String(16))
    limit_amount: Mapped[Decimal] = mapped_column()
    consumed: Mapped[Decimal] = mapped_column()
    """Spent and reserved in the period before the call."""
    estimated: Mapped[Decimal] = mapped_column()
    overrun: Mapped[Decimal] = mapped_column()
    """consumed + estimated - limit_amount."""
    currency: Mapped[str] = mapped_column(String(8))
    agent_key: Mapped[str | None] = mapped_column(String(255))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    run_id: Mapped[str | None] = mapped_column(String(36))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index('ix_spending_overruns_created', 'created_at'),)


class SpendBucket(Base):
    """What the ledger holds for one scope in one UTC hour or day, in one currency: written only by
    the triggers on `llm_calls` (each row's cost is added to its tenant's, user's, agent's and
    preset's hour and day as it is inserted, moved when it is updated, taken off when deleted)."""

    __tablename__ = 'spend_buckets'

    scope: Mapped[str] = mapped_column(String(16))
    """`tenant`, `user`, `agent` or `preset` (a limit's scope)."""
    scope_id: Mapped[str] = mapped_column(String(511))
    span: Mapped[str] = mapped_column(String(1))
    """`h`: the hour starting at `start`; `d`: the UTC day."""
    start: Mapped[datetime] = mapped_column()
    currency: Mapped[str] = mapped_column(String(8))
    """The rows' currency ('' for a cost that names none)."""
    amount: Mapped[Decimal] = mapped_column()

    __table_args__ = (PrimaryKeyConstraint('scope', 'scope_id', 'span', 'start', 'currency'),)


class LlmCall(Base):
    """The accounting ledger: one row per model request, with tokens and cost."""

    __tablename__ = 'llm_calls'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    run_id: Mapped[str | None] = mapped_column(String(36))
    parent_run_id: Mapped[str | None] = mapped_column(String(36))
    conversation_id: Mapped[str | None] = mapped_column(String(36))
    module: Mapped[str] = mapped_column(String(32), default='chat')
    agent_key: Mapped[str | None] = mapped_column(String(255))
    provider: Mapped[str | None] = mapped_column(String(64))
    model: Mapped[str | None] = mapped_column(String(255))
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cache_read_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cache_write_tokens: Mapped[int] = mapped_column(Integer, default=0)
    reasoning_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost: Mapped[Decimal | None] = mapped_column()
    currency: Mapped[str | None] = mapped_column(String(8))
    price_source: Mapped[str | None] = mapped_column(String(64))
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    user: Mapped[str | None] = mapped_column(String(511))
    """Who the call was made for: the scope's actor as `type:id`."""
    tenant: Mapped[str | None] = mapped_column(String(511))
    """Who pays: the scope's tenant as `type:id`."""
    preset: Mapped[str | None] = mapped_column(String(100))
    """The registry preset the call ran with."""
    cost_reference: Mapped[Decimal | None] = mapped_column()
    """`cost` converted to the reference currency (rates from the settings at call time)."""
    reference_currency: Mapped[str | None] = mapped_column(String(8))
    price_version: Mapped[str | None] = mapped_column(String(64))
    """Which version of the price source priced the call (pinned at call time)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        Index('ix_llm_calls_conversation', 'conversation_id'),
        Index('ix_llm_calls_created_at', 'created_at'),
        Index('ix_llm_calls_agent_created', 'agent_key', 'created_at'),
        Index('ix_llm_calls_run', 'run_id'),
        Index('ix_llm_calls_tenant_created', 'tenant', 'created_at'),
        Index('ix_llm_calls_user_created', 'user', 'created_at'),
        Index('ix_llm_calls_preset_created', 'preset', 'created_at'),
    )


register_table(LlmCall, owner='conversation', key='conversation_id', kept=True)
