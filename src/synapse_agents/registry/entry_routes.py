"""The five routes of a registry kind kept by key: list, create, read, change and delete.

`add_entry_routes` writes them once for every such kind (presets, tones, configured agents), with
the kind's own answer types, words and status codes, so each kind's wire format and OpenAPI entries
stay its own. Annotations here are evaluated (no `from __future__ import annotations`): FastAPI
reads each route's body and answer types from them.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from ..web.errors import error_responses
from .read import listing
from .responses import RegistryDeleted
from .route_helpers import Context, KeyPath, SandboxQuery, call, found


@dataclass(frozen=True)
class EntryRoutes:
    """What the routes of one kind need: its names, table, service, models and each route's words."""

    singular: str
    """`preset`: names the routes (`create_preset`, ...)."""
    plural: str
    """`presets`: the path and the list's field."""
    table: Any
    service: Any
    """The kind's module: `create(store, body)`, `update(store, key, body)`, `delete(store, key)`."""
    model: Any
    """The answer: the model of one entry as the API shows it, built by its `of(row)`."""
    answers: type[BaseModel]
    """The list's answer: one field, `plural`."""
    body: type[BaseModel]
    patch: type[BaseModel]
    docs: dict[str, str]
    """Each route's description, by `list`, `create`, `read`, `update`, `delete`."""
    sandboxes: bool = False
    """Whether the list takes `?sandbox=`."""
    delete_responses: dict[int | str, dict[str, Any]] = field(default_factory=dict)


def _listed(kind: EntryRoutes) -> Callable[..., Awaitable[Any]]:
    """The list route: every entry by key (sandboxes as `?sandbox=` says, for a kind that has them)."""

    async def every(context: Context, sandbox: SandboxQuery = 'exclude') -> Any:
        rows = await call(listing, context.store, kind.table, sandbox=sandbox)
        return kind.answers(**{kind.plural: [kind.model.of(row) for row in rows]})

    async def without_sandboxes(context: Context) -> Any:
        return await every(context)

    return every if kind.sandboxes else without_sandboxes


def add_entry_routes(router: APIRouter, kind: EntryRoutes) -> None:
    """Register the kind's five routes on `router`, in the order the OpenAPI document lists them."""
    answer, model = kind.model.of, kind.model
    path = f'/api/registry/{kind.plural}'
    in_use = error_responses(409)
    every = _listed(kind)

    async def create(body: kind.body, context: Context) -> Any:  # type: ignore[name-defined]
        return answer(await call(kind.service.create, context.store, body))

    async def read(key: KeyPath, context: Context) -> Any:
        return answer(await found(context, kind.table, key))

    async def update(key: KeyPath, body: kind.patch, context: Context) -> Any:  # type: ignore[name-defined]
        return answer(await call(kind.service.update, context.store, key, body))

    async def delete(key: KeyPath, context: Context) -> RegistryDeleted:
        await call(kind.service.delete, context.store, key)
        return RegistryDeleted(deleted=key)

    one = f'{path}/{{key}}'
    add = router.add_api_route
    add(
        path,
        every,
        methods=['GET'],
        name=kind.plural,
        description=kind.docs['list'],
        response_model=kind.answers,
    )
    add(
        path,
        create,
        methods=['POST'],
        name=f'create_{kind.singular}',
        description=kind.docs['create'],
        response_model=model,
        status_code=201,
        responses=in_use,
    )
    add(one, read, methods=['GET'], name=kind.singular, description=kind.docs['read'], response_model=model)
    add(
        one,
        update,
        methods=['PATCH'],
        name=f'update_{kind.singular}',
        description=kind.docs['update'],
        response_model=model,
    )
    add(
        one,
        delete,
        methods=['DELETE'],
        name=f'delete_{kind.singular}',
        description=kind.docs['delete'],
        response_model=RegistryDeleted,
        responses=kind.delete_responses,
    )
