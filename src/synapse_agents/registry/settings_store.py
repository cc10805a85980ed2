"""Settings kept in the registry: values stored there override the file and the environment.

The registry manages a few global settings (`MANAGED`). A stored value is validated as the
setting's type (its constraints included) and wins over every other source where the registry
applies: `effective()` is the settings with the stored values in, for the code that uses them
(`synapse prune`, the daily auto-prune). Blocking: call from a thread.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy import delete as sql_delete
from sqlalchemy import select

from ..settings import LoadedSettings, Settings
from ..store import Store
from ..store.schema import utcnow
from .errors import NotFound, RegistryError, from_validation, invalid_field
from .read import stored_settings
from .responses import RegistrySetting
from .tables import RegistrySetting as SettingRow

MANAGED = ('retention_days', 'language', 'chunk_size', 'chunk_overlap', 'vector_store')
"""The settings the registry may store."""

VECTOR_STORES = ('auto', 'sqlite-vec', 'pgvector')
LANGUAGE_TAG = re.compile(r'^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$')


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    """The setting's type with its constraints (`gt=0`, ...), as `Settings` declares it."""
    field = Settings.model_fields[name]
    annotation: Any = field.annotation
    return TypeAdapter(Annotated[annotation, *field.metadata] if field.metadata else annotation)


def _check_name(name: str) -> None:
    if name not in MANAGED:
        raise NotFound(f'No registry setting {name!r} (the registry manages {", ".join(MANAGED)}).')


def validated(
    name: str, value: Any, stored: dict[str, Any] | None = None, base: Settings | None = None
) -> Any:
    """`value` as the setting `name` takes it; `Invalid` naming `body.value` when it is not one."""
    _check_name(name)
    try:
        parsed = _adapter(name).validate_python(value, strict=isinstance(value, bool))
    except ValidationError as exc:
        raise from_validation(exc, 'body.value') from None
    if name == 'vector_store' and parsed not in VECTOR_STORES:
        raise invalid_field('body.value', f'one of {", ".join(VECTOR_STORES)}')
    if name == 'language' and not LANGUAGE_TAG.match(parsed):
        raise invalid_field('body.value', 'an IETF language tag such as en, de or pt-BR')
    if name in ('chunk_size', 'chunk_overlap') and base is not None:
        values = {**{n: getattr(base, n) for n in MANAGED}, **(stored or {}), name: parsed}
        if values['chunk_overlap'] >= values['chunk_size']:
            raise invalid_field(
                'body.value',
                f'chunk_overlap ({values["chunk_overlap"]}) must be smaller than chunk_size '
                f'({values["chunk_size"]})',
            )
    return parsed


def _usable(stored: dict[str, Any]) -> dict[str, Any]:
    """The stored values that are still valid (a value stored by another version is ignored)."""
    usable = {}
    for name, value in stored.items():
        if name in MANAGED:
            try:
                usable[name] = validated(name, value)
            except RegistryError:
                continue
    return usable


def stored_values(store: Store) -> dict[str, Any]:
    """The valid stored values, by setting name."""
    return _usable(stored_settings(store))


def effective(store: Store, settings: Settings) -> Settings:
    """The settings with the registry's stored values in (they win over file and environment)."""
    stored = _usable(stored_settings(store))
    return settings.model_copy(update=stored) if stored else settings


def listing(store: Store, loaded: LoadedSettings) -> list[RegistrySetting]:
    """Every registry-managed setting: the value in effect, its source, the stored value, the help."""
    stored = stored_settings(store)
    usable = _usable(stored)
    by_name = {value.name: value for value in loaded.values}
    answer = []
    for name in MANAGED:
        loaded_value = by_name[name]
        in_registry = name in usable
        answer.append(
            RegistrySetting(
                name=name,
                value=usable[name] if in_registry else loaded_value.value,
                source='registry' if in_registry else loaded_value.source,
                stored=stored.get(name),
                help=loaded_value.help,
            )
        )
    return answer


def put(store: Store, loaded: LoadedSettings, name: str, value: Any) -> RegistrySetting:
    """Store a value for a registry-managed setting."""
    parsed = validated(name, value, _usable(stored_settings(store)), loaded.settings)
    with store.write() as session:
        row = session.get(SettingRow, name)
        if row is None:
            session.add(SettingRow(key=name, value=parsed, updated_at=utcnow()))
        else:
            row.value, row.updated_at = parsed, utcnow()
    return next(setting for setting in listing(store, loaded) if setting.name == name)


def delete(store: Store, loaded: LoadedSettings, name: str) -> RegistrySetting:
    """Remove the stored value (when there is one): the file, environment or default applies again."""
    _check_name(name)
    with store.write() as session:
        session.execute(sql_delete(SettingRow).where(SettingRow.key == name))
    return next(setting for setting in listing(store, loaded) if setting.name == name)


def stored_names(store: Store) -> list[str]:
    """The names of the settings with a stored value."""
    with store.read() as session:
        return list(session.scalars(select(SettingRow.key).order_by(SettingRow.key)))
