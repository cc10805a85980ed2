"""What every kind's service shares: parsing input, finding a row, inserting without duplicates,
and the create, change and delete of a kind whose entry is its key and a set of fields (`KeyedKind`).

Rows come back detached (the sessions keep loaded values after commit), as `read` returns them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

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
PatchModel = TypeVar('PatchModel', bound=Patch)

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


@dataclass(frozen=True)
class KeyedKind(Generic[Row, Parsed, PatchModel]):
    """A kind whose entry is its key and `fields`: created from `model`, changed by `patch`, and
    refused deletion (409) while entries whose `used_by` column names it exist (`users` says who)."""

    table: type[Row]
    model: type[Parsed]
    patch: type[PatchModel]
    fields: tuple[str, ...]
    used_by: Any
    users: str

    def create(self, store: Store, data: Mapping[str, Any] | Parsed) -> Row:
        """Add an entry; `Duplicate` when its key is taken."""
        entry = parse(self.model, data)
        values = {name: getattr(entry, name) for name in ('key', *self.fields)}
        return insert(store, self.table(**values, created_at=utcnow(), updated_at=utcnow()))

    def update(self, store: Store, key: str, data: Mapping[str, Any] | PatchModel) -> Row:
        """Change the entry's fields the PATCH body gives (the merged entry is validated again);
        `updated_at` moves only when a value changed."""
        patch = parse(self.patch, data)
        same_key(key, getattr(patch, 'key', None))
        with store.write() as session:
            row = found(session, self.table, key)
            merged = parse(self.model, {'key': key, **current(row, self.fields), **patch.changes()})
            if assign(row, {name: getattr(merged, name) for name in self.fields}):
                row.updated_at = utcnow()
        return row

    def delete(self, store: Store, key: str) -> None:
        """Remove the entry; refused (409) while others name it."""
        with store.write() as session:
            row = found(session, self.table, key)
            users = list(session.scalars(select(self.used_by.class_.key).where(self.used_by == key)))
            if users:
                raise in_use(self.table, key, users, self.users)
            session.delete(row)
