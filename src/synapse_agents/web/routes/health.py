"""`GET /api/health`: is the server up, which database, which schema revision, can the store work.

The store is checked two ways on every call: each table is read (its first row, `SELECT * ... LIMIT
1`: a few pages, and an unreadable file, a missing table or a corrupted first page shows), and the
write queue's last failure is reported until a later write commits (a full disk shows after the
first turn that could not be saved, and clears with the first one that is). A failing store
answers 503 with `status: "degraded"` and `store.error` saying why, so a monitor needs only the
status code.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import Engine, select
from starlette.concurrency import run_in_threadpool

from ..._version import __version__
from ...discovery import degraded_features
from ...store import current_revision, head_revision
from ...store.schema import Base
from ...store.write_queue import store_error_text
from ...traces.provider import degraded as traces_degraded
from ..context import SynapseContext, get_context

router = APIRouter(tags=['health'])


class StoreHealth(BaseModel):
    """Whether the store reads and writes."""

    ok: bool
    error: str | None = Field(
        None, description='Why not: the failed read, or the last failed write ("database or disk is full").'
    )


class Health(BaseModel):
    status: str = Field(description="'ok', or 'degraded' when the store fails (answered with 503).")
    version: str
    database: str
    revision: str | None
    head: str
    up_to_date: bool
    store: StoreHealth
    degraded: list[dict[str, str]] = Field(
        default_factory=list,
        description='Features turned off because the installed pydantic-ai lacks a name they read.',
    )


def _read_store(engine: Engine) -> tuple[str | None, str | None]:
    """The migration revision, and why reading the tables failed (None when they read)."""
    try:
        with engine.connect() as connection:
            for table in Base.metadata.sorted_tables:
                # Every column, so the table's own pages are read (`SELECT 1` may read an index).
                connection.execute(select(table).limit(1)).all()
        return current_revision(engine), None
    except Exception as exc:
        return None, store_error_text(exc)


@router.get(
    '/api/health',
    response_model=Health,
    responses={503: {'model': Health, 'description': 'The store fails: `store.error` says why.'}},
)
async def health(context: Annotated[SynapseContext, Depends(get_context)]) -> JSONResponse:
    """Version, database dialect, migration revision, and whether the store reads and writes."""
    revision, error = await run_in_threadpool(_read_store, context.store.engine)
    if error is None and context.chat is not None:
        error = context.chat.writes.last_failure
    head = head_revision()
    body = Health(
        status='ok' if error is None else 'degraded',
        version=__version__,
        database=context.store.dialect,
        revision=revision,
        head=head,
        up_to_date=revision == head,
        store=StoreHealth(ok=error is None, error=error),
        degraded=[feature.as_dict() for feature in degraded_features()] + traces_degraded(),
    )
    return JSONResponse(body.model_dump(), status_code=200 if error is None else 503)
