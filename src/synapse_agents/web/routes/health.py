"""`GET /api/health`: is the server up, which database, which schema revision."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from ... import __version__
from ...store import current_revision, head_revision
from ..context import SynapseContext, get_context

router = APIRouter(tags=['health'])


class Health(BaseModel):
    status: str
    version: str
    database: str
    revision: str | None
    head: str
    up_to_date: bool


@router.get('/api/health')
async def health(context: Annotated[SynapseContext, Depends(get_context)]) -> Health:
    """Version, database dialect and migration revision."""
    revision = await run_in_threadpool(current_revision, context.store.engine)
    head = head_revision()
    return Health(
        status='ok',
        version=__version__,
        database=context.store.dialect,
        revision=revision,
        head=head,
        up_to_date=revision == head,
    )
