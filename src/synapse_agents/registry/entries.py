"""What every kind's service shares: parsing input, finding a row, inserting without duplicates,
and the create, change and delete of a kind whose entry is its key and a set of fields.

Rows come back detached (the sessions keep loaded values after commit), as `read` returns them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..store import Store
from ..store.schema import utcnow
from .errors import Duplicate, NotFound, from_validation, invalid_field
from .schemas import Patch
from .tables import AgentConfig, Preset, Provider, RegistryModel, Tone

Row = TypeVar('Row', Provider, RegistryModel, Preset, Tone, AgentConfig)
Parsed = TypeVar('Parsed', bound=BaseModel)

LABELS: dict[type[Any], str] = {
    Provider: 'provider',
    RegistryModel: 'model',
    Preset: 'preset',
    Tone: 'tone',
    AgentConfig: 'agent',
}
"""How messages name each kind."""


def parse(model: type[Parsed], data: Mapping[str, Any] | Parsed, prefix: str = 'body') -> Parsed:
    """`data` validated as `model`; an `Invalid` naming each bad field (under `prefix`) otherwise."""
    if isinstance(data, model):
        return data
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_validation(exc, prefix) from None


def not_found(kind: type[Any], key: str) -> NotFound:
    """The 404 for an unknown key."""
    return NotFound(f'No {LABELS[kind]} with key {key!r}.')


def found(session: Session, kind: type[Row], key: str) -> Row:
    """The row of `kind` with `key` in this session, or `NotFound`."""
    row = session.scalars(select(kind).where(kind.key == key)).one_or_none()
    if row is None:
        raise not_found(kind, key)
    return row


def exists(session: Session, kind: type[Row], key: str) -> bool:
    """Whether an entry of `kind` has `key`."""
    return session.scalars(select(kind.id).where(kind.key == key)).first() is not None


def insert(store: Store, row: Row, *related: Any) -> Row:
    """Add `row` (and rows that belong to it); `Duplicate` when its key is taken."""
    kind = type(row)
    duplicate = Duplicate(f'A {LABELS[kind]} with key {row.key!r} exists already.')
    try:
        with store.write() as session:
            if exists(session, kind, row.key):
                raise duplicate
            session.add(row)
            session.add_all(related)
    except IntegrityError as exc:  # the same key added at the same moment by another writer
        raise duplicate from exc
    return row


def same_key(path_key: str, body_key: str | None) -> None:
    """A PATCH body may repeat the key of the path, never change it."""
    if body_key is not None and body_key != path_key:
        raise invalid_field('body.key', f'a key cannot be changed (this entry is {path_key!r})')


def in_use(kind: type[Any], key: str, users: Sequence[str], what: str) -> Duplicate:
    """The 409 for deleting an entry others name."""
    shown = ', '.join(repr(user) for user in users[:5]) + (', ...' if len(users) > 5 else '')
    return Duplicate(f'The {LABELS[kind]} {key!r} is used by {what} {shown}: change or delete them first.')


def current(row: Any, fields: Sequence[str]) -> dict[str, Any]:
    """The row's values of `fields`, for merging a PATCH onto."""
    return {name: getattr(row, name) for name in fields}


def assign(row: Any, values: Mapping[str, Any]) -> bool:
    """Set the row's fields; whether any value changed."""
    changed = False
    for name, value in values.items():
        if getattr(row, name) != value:
            setattr(row, name, value)
            changed = True
    return changed


def create_entry(
    store: Store,
    kind: type[Row],
    model: type[Parsed],
    data: Mapping[str, Any] | Parsed,
    fields: Sequence[str],
) -> Row:
    """Add an entry of `kind` from `data` (validated as `model`): its key and `fields`; `Duplicate`
    when its key is taken."""
    entry = parse(model, data)
    values = {name: getattr(entry, name) for name in ('key', *fields)}
    return insert(store, kind(**values, created_at=utcnow(), updated_at=utcnow()))


def update_entry(
    store: Store,
    kind: type[Row],
    model: type[BaseModel],
    patch_model: type[Patch],
    key: str,
    data: Mapping[str, Any] | Patch,
    fields: Sequence[str],
) -> Row:
    """Change `fields` of the entry with `key` by a PATCH body (`patch_model`); the merged entry is
    validated as `model`, and `updated_at` moves only when a value changed."""
    patch = parse(patch_model, data)
    same_key(key, getattr(patch, 'key', None))
    with store.write() as session:
        row = found(session, kind, key)
        merged = parse(model, {'key': key, **current(row, fields), **patch.changes()})
        if assign(row, {name: getattr(merged, name) for name in fields}):
            row.updated_at = utcnow()
    return row


def delete_entry(store: Store, kind: type[Row], key: str, used_by: Any, what: str) -> None:
    """Remove the entry with `key`; refused (409) while entries whose `used_by` column names it exist
    (`what` names them in the refusal)."""
    with store.write() as session:
        row = found(session, kind, key)
        users = list(session.scalars(select(used_by.class_.key).where(used_by == key)))
        if users:
            raise in_use(kind, key, users, what)
        session.delete(row)
