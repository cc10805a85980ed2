"""Who indexes a source: one run at a time, decided in the database.

A run claims a source with a token of its own in one conditional UPDATE: it wins when the source has
no claim, or when the claim's heartbeat is older than `stale_after` seconds (its run was killed or
lost its machine: a dead run never locks a source for good). While it works it beats (the same
UPDATE guarded by its token), and every write of its own begins with a beat: a run whose claim was
taken over, or whose source was deleted, finds its token gone and stops without writing.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import or_, update
from sqlalchemy.orm import Session

from ..store import Store
from ..store.ids import new_id
from ..store.schema import utcnow
from .tables import RagSource


class ClaimLost(RuntimeError):
    """The run's claim is gone: taken over by another run, or the source deleted."""


def claim(store: Store, source_id: str, stale_after: float) -> str | None:
    """Claim the source for a new run: its token, or None when a live run holds it."""
    token = new_id()
    now = utcnow()
    stale = now - timedelta(seconds=stale_after)
    with store.write() as session:
        result = session.execute(
            update(RagSource)
            .where(
                RagSource.id == source_id,
                or_(
                    RagSource.claim.is_(None),
                    RagSource.heartbeat_at.is_(None),
                    RagSource.heartbeat_at < stale,
                ),
            )
            .values(
                claim=token,
                claimed_at=now,
                heartbeat_at=now,
                status='indexing',
                processed_files=0,
                total_files=0,
                current_file=None,
                last_error=None,
                updated_at=now,
            )
            .execution_options(synchronize_session=False)
        )
        won = _rowcount(result) == 1
    return token if won else None


def beat(session: Session, source_id: str, token: str, **values: Any) -> None:
    """Renew the claim (with `values` set on the source), or `ClaimLost`."""
    now = utcnow()
    result = session.execute(
        update(RagSource)
        .where(RagSource.id == source_id, RagSource.claim == token)
        .values(heartbeat_at=now, updated_at=now, **values)
        .execution_options(synchronize_session=False)
    )
    if _rowcount(result) != 1:
        raise ClaimLost(source_id)


def release(store: Store, source_id: str, token: str, **values: Any) -> bool:
    """End the run's claim, setting `values` on the source; whether the claim was still the run's."""
    now = utcnow()
    with store.write() as session:
        result = session.execute(
            update(RagSource)
            .where(RagSource.id == source_id, RagSource.claim == token)
            .values(
                claim=None, claimed_at=None, heartbeat_at=now, updated_at=now, current_file=None, **values
            )
            .execution_options(synchronize_session=False)
        )
        return _rowcount(result) == 1


def is_live(row: RagSource, stale_after: float) -> bool:
    """Whether a run holds the source and beat within `stale_after` seconds."""
    if row.claim is None or row.heartbeat_at is None:
        return False
    return row.heartbeat_at >= utcnow() - timedelta(seconds=stale_after)


def _rowcount(result: Any) -> int:
    return int(getattr(result, 'rowcount', 0) or 0)
