"""The tables Synapse keeps. Alembic migrations own the schema; these classes mirror it.

Deletes cascade in the repository layer (see `repository.Store`), never through foreign keys:
SQLite leaves them off by default and a debugging tool must not depend on a pragma.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Dialect, Integer, Numeric, String, Table
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

JsonType = JSON().with_variant(JSONB(), 'postgresql')


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError('naive datetime given to a UTC column')
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == 'sqlite' else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


COST_SCALE = 10
"""Decimal places a cost keeps (per-token prices have many)."""
_QUANTUM = Decimal(1).scaleb(-COST_SCALE)


class Money(TypeDecorator[Decimal]):
    """An amount of money, exact: `NUMERIC(20, 10)` on PostgreSQL, integer units of 10⁻¹⁰ on SQLite.

    SQLite has no decimal type (a NUMERIC column holds a float, and its SUM adds floats), so there
    the amount is stored as a whole number of units, whose SUM is exact. Either way it reads back as
    a `Decimal` with 10 places; a float given (a hand-written row) is taken as the decimal it prints as.
    A stored value that is not a finite number reads as `Decimal('NaN')`.
    """

    impl = Numeric(20, COST_SCALE, asdecimal=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        if dialect.name == 'sqlite':
            return dialect.type_descriptor(BigInteger())
        return dialect.type_descriptor(Numeric(20, COST_SCALE, asdecimal=True))

    def process_bind_param(self, value: Decimal | float | int | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        amount = (Decimal(repr(value)) if isinstance(value, float) else Decimal(value)).quantize(_QUANTUM)
        return int(amount.scaleb(COST_SCALE)) if dialect.name == 'sqlite' else amount

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        try:
            if dialect.name == 'sqlite':
                return Decimal(int(value)).scaleb(-COST_SCALE)
            return Decimal(value).quantize(_QUANTUM)
        except (ArithmeticError, TypeError, ValueError):
            # A hand-edited row ('abc', NaN, Infinity): read as NaN, so the query still returns its
            # other rows and the reader names this one (`corrupt.unreadable_amount`).
            return Decimal('NaN')


class Base(DeclarativeBase):
    type_annotation_map = {
        dict[str, Any]: JsonType,
        list[Any]: JsonType,
        datetime: UtcDateTime(),
        Decimal: Money(),
    }


class StoreInstance(Base):
    """A running Synapse process and its last heartbeat (see `store.instances`)."""

    __tablename__ = 'store_instances'

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    pid: Mapped[int] = mapped_column(Integer)
    host: Mapped[str] = mapped_column(String(255))
    pid_scope: Mapped[str | None] = mapped_column(String(255))
    started_at: Mapped[datetime] = mapped_column()
    heartbeat_at: Mapped[datetime] = mapped_column()


def tables_declared_in(module: str) -> list[Table]:
    """The tables of the models declared in `module` (an area's `tables` module), in the order
    declared: what its plugin answers to `register_tables`."""
    return [
        mapper.local_table
        for mapper in Base.registry.mappers
        if mapper.class_.__module__ == module and isinstance(mapper.local_table, Table)
    ]
