"""Reading and writing a conversation's vault and its `anonymize_pii` flag (blocking: call from a thread).

The vault is sealed with the `secret_key` setting (`encryption.SecretBox.seal`): the database holds
no value in clear. A local Synapse without a key makes one in `SYNAPSE_HOME/secret_key` the first
time a vault is stored, as it does for a provider's API key; in production a missing key is a
`PrivacyUnavailable` (the turn fails before anything is sent). A row is read only with the tenant it
was written for: a conversation of another tenant has no vault here.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from ..encryption import BadSecretKey, NoSecretKey, SecretBox, UndecryptableSecret
from ..errors import PrivacyUnavailable
from ..secret_key_file import PRODUCTION, make_key
from ..settings import Settings
from ..store import Store
from ..store.schema import utcnow
from .tables import PrivacyVault
from .vault import Vault


@dataclass(frozen=True)
class Stored:
    """What `load` found: the vault (empty when none is stored) and the conversation's flag."""

    vault: Vault
    anonymize_pii: bool = True


def box_for(settings: Settings) -> SecretBox:
    """The box that seals vaults: the `secret_key` setting, made in the home when unset (never in
    production); `PrivacyUnavailable` when there is no usable key."""
    try:
        if settings.secret_key is None:
            if settings.env == PRODUCTION:
                raise NoSecretKey()
            settings.secret_key = make_key(settings.home)
        return SecretBox.from_setting(settings.secret_key)
    except (NoSecretKey, BadSecretKey, OSError) as exc:
        raise PrivacyUnavailable(f'The privacy vault cannot be encrypted: {exc}') from exc


def load(store: Store, box: SecretBox, conversation_id: str, tenant: str | None) -> Stored:
    """The conversation's vault and flag (an empty vault and `True` when nothing is stored)."""
    with store.read() as session:
        row = session.get(PrivacyVault, conversation_id)
        if row is None or row.tenant != tenant:
            return Stored(Vault())
        return Stored(_opened(box, row), bool(row.anonymize_pii))


def save(store: Store, box: SecretBox, conversation_id: str, tenant: str | None, vault: Vault) -> None:
    """Store the vault, with whatever another run of the conversation stored meanwhile merged in."""
    with store.write() as session:
        row = _row(session, conversation_id, tenant)
        if row.sealed:
            vault.merge(_opened(box, row).entries())
        row.sealed = box.seal(vault.dumps())
        row.entries = len(vault)
        row.updated_at = utcnow()
    vault.saved()


def set_anonymize_pii(store: Store, conversation_id: str, enabled: bool, tenant: str | None = None) -> None:
    """Turn redaction on or off for one conversation (it is on unless turned off here; the
    `privacy_enabled` setting or a `Privacy` capability must be on for it to matter)."""
    with store.write() as session:
        row = _row(session, conversation_id, tenant)
        row.anonymize_pii = enabled
        row.updated_at = utcnow()


def anonymize_pii(store: Store, conversation_id: str, tenant: str | None = None) -> bool:
    """Whether the conversation redacts (True unless it opted out)."""
    with store.read() as session:
        row = session.get(PrivacyVault, conversation_id)
        return row is None or row.tenant != tenant or bool(row.anonymize_pii)


@dataclass(frozen=True)
class Status:
    """What may be shown of a conversation's privacy: whether it redacts, and how many placeholders
    its vault holds (never a value: the values need the key, and `load`)."""

    anonymize_pii: bool
    placeholders: int


def status(store: Store, conversation_id: str, tenant: str | None = None) -> Status:
    """The conversation's `Status` (redacting, no placeholders yet, when nothing is stored); reads no
    ciphertext, so it needs no key (for a listing or the playground's marker)."""
    with store.read() as session:
        row = session.get(PrivacyVault, conversation_id)
        if row is None or row.tenant != tenant:
            return Status(anonymize_pii=True, placeholders=0)
        return Status(anonymize_pii=bool(row.anonymize_pii), placeholders=row.entries or 0)


def _opened(box: SecretBox, row: PrivacyVault) -> Vault:
    if not row.sealed:
        return Vault()
    try:
        return Vault.loads(box.unseal(row.sealed))
    except (NoSecretKey, UndecryptableSecret) as exc:
        raise PrivacyUnavailable(f'The privacy vault of this conversation cannot be read: {exc}') from exc


def _row(session: Session, conversation_id: str, tenant: str | None) -> PrivacyVault:
    row = session.get(PrivacyVault, conversation_id, with_for_update=True)
    if row is not None and row.tenant != tenant:
        raise PrivacyUnavailable('This conversation belongs to another tenant.')
    if row is None:
        now = utcnow()
        row = PrivacyVault(
            conversation_id=conversation_id,
            tenant=tenant,
            anonymize_pii=True,
            entries=0,
            created_at=now,
            updated_at=now,
        )
        session.add(row)
    return row
