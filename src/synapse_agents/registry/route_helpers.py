"""What the registry's routes share: the path parameters, the service call, the 404 for a key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Depends, Path, Query
from starlette.concurrency import run_in_threadpool

from ..web.context import SynapseContext, get_context
from ..web.errors import ApiError
from . import read
from .entries import not_found
from .errors import RegistryError
from .schemas import KEY_PATTERN

Context = Annotated[SynapseContext, Depends(get_context)]
KeyPath = Annotated[
    str, Path(min_length=1, max_length=100, pattern=KEY_PATTERN, description="The entry's key.")
]
SandboxQuery = Annotated[
    Literal['exclude', 'only', 'include'],
    Query(description='Sandboxes: left out (`exclude`, the default), `only` them, or `include`d.'),
]

Result = TypeVar('Result')


def api_error(exc: RegistryError) -> ApiError:
    """The JSON error for a service's refusal: the same status, message, code and fields."""
    return ApiError(exc.status, exc.message, code=exc.code, **exc.extra())


async def call(function: Callable[..., Result], *args: Any, **kwargs: Any) -> Result:
    """Run a blocking service call in a thread; its refusals as JSON errors."""
    try:
        return await run_in_threadpool(function, *args, **kwargs)
    except RegistryError as exc:
        raise api_error(exc) from None


async def found(context: SynapseContext, kind: Any, key: str) -> Any:
    """The entry of `kind` with `key` (sandboxes included); a 404 when there is none."""
    row = await run_in_threadpool(read.by_key, context.store, kind, key)
    if row is None:
        raise api_error(not_found(kind, key))
    return row
