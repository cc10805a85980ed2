"""Providers: create, change, delete; their API keys encrypted, and every key re-encrypted on rotation.

An API key is encrypted with the `SecretBox` before it reaches the database: only the ciphertext
and its last four characters are stored. Without a `secret_key` setting a key cannot be stored
(a 422 with code `no_secret_key` that says how to set one). Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import SecretStr
from sqlalchemy import select

from ..encryption import HOW_TO_SET, SecretBox, UndecryptableSecret, last_four
from ..store import Store
from ..store.schema import utcnow
from .entries import assign, current, found, in_use, insert, parse, same_key
from .errors import Invalid, RegistryError
from .schemas import ProviderInput, ProviderPatch
from .tables import Provider, RegistryModel

FIELDS = ('kind', 'name', 'base_url', 'options', 'enabled')
"""What a PATCH may change besides the API key."""


class RotationFailed(RegistryError):
    """A stored secret no configured key opens: nothing was re-encrypted."""

    def __init__(self, provider_key: str) -> None:
        super().__init__(
            409,
            f'The API key of provider {provider_key!r} cannot be decrypted with any key in secret_key: '
            'nothing was re-encrypted. Add the key it was stored under to secret_key (after the new one).',
            code='undecryptable_secret',
        )


def _seal(box: SecretBox, secret: SecretStr) -> tuple[str, str]:
    """The ciphertext and the last four characters of an API key."""
    if not box.ready:
        message = f'an API key cannot be stored: no secret_key is set. {HOW_TO_SET}'
        raise Invalid(
            f'api_key: {message}',
            [{'location': 'body.api_key', 'message': message}],
            code='no_secret_key',
        )
    plain = secret.get_secret_value()
    return box.encrypt(plain), last_four(plain)


def create(store: Store, box: SecretBox, data: ProviderInput | Mapping[str, Any]) -> Provider:
    """Add a provider; `Duplicate` when its key is taken."""
    entry = parse(ProviderInput, data)
    secret, last4 = _seal(box, entry.api_key) if entry.api_key is not None else (None, None)
    row = Provider(
        key=entry.key,
        kind=entry.kind,
        name=entry.name,
        base_url=entry.base_url,
        secret=secret,
        secret_last4=last4,
        options=entry.options,
        enabled=entry.enabled,
        created_at=utcnow(),
        updated_at=utcnow(),
    )
    return insert(store, row)


def update(store: Store, box: SecretBox, key: str, data: ProviderPatch | Mapping[str, Any]) -> Provider:
    """Change a provider. `api_key` left out keeps the stored key, null removes it, a string replaces it."""
    patch = parse(ProviderPatch, data)
    same_key(key, patch.key)
    changes = patch.changes()
    secret_given = 'api_key' in changes
    new_secret = changes.pop('api_key', None)
    with store.write() as session:
        row = found(session, Provider, key)
        merged = parse(ProviderInput, {'key': key, **current(row, FIELDS), **changes})
        changed = assign(row, {name: getattr(merged, name) for name in FIELDS})
        if secret_given:
            row.secret, row.secret_last4 = _seal(box, new_secret) if new_secret is not None else (None, None)
            changed = True
        if changed:
            row.updated_at = utcnow()
    return row


def delete(store: Store, key: str) -> None:
    """Remove a provider; refused (409) while registry models name it."""
    with store.write() as session:
        row = found(session, Provider, key)
        users = list(session.scalars(select(RegistryModel.key).where(RegistryModel.provider_key == key)))
        if users:
            raise in_use(Provider, key, users, 'the models')
        session.delete(row)


def secret_of(store: Store, box: SecretBox, key: str) -> str | None:
    """The provider's API key in clear (None: none is stored), to build the client that uses it."""
    with store.read() as session:
        row = found(session, Provider, key)
        return box.decrypt(row.secret) if row.secret is not None else None


def rotate(store: Store, box: SecretBox) -> int:
    """Re-encrypt every stored API key under the first key of `secret_key`; how many were.

    All or nothing, in one transaction: a secret no configured key opens is `RotationFailed`
    naming its provider, and nothing changes. `NoSecretKey` without a key.
    """
    box.encrypt('')  # NoSecretKey before anything is read
    count = 0
    with store.write() as session:
        rows = session.scalars(select(Provider).where(Provider.secret.is_not(None)).order_by(Provider.key))
        for row in rows:
            assert row.secret is not None
            try:
                row.secret = box.rotate(row.secret)
            except UndecryptableSecret:
                raise RotationFailed(row.key) from None
            count += 1
    return count
