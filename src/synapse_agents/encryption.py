"""Secrets encrypted at rest: one copy for every feature that stores one (provider keys, vaults).

A secret is encrypted with `cryptography`'s Fernet (AES-128-CBC with HMAC-SHA256, a timestamped
token) under the `secret_key` setting. The setting may list several comma-separated keys: the
first encrypts, any of them decrypts (`MultiFernet`), so a key is rotated without downtime:

1. set `secret_key = "NEW,OLD"` everywhere;
2. run `synapse registry rotate-key` (every stored secret is re-encrypted under NEW);
3. drop OLD from the setting.

Only the ciphertext and the last four characters (what a user may be shown) are ever stored; the
plain secret leaves this module only to build the client that uses it. Every secret encrypted or
decrypted here is also handed to `redaction`, so that a provider quoting it back (in an error) never
gets it stored, shown or exported.
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from pydantic import SecretStr

from .redaction import remember

SHOWN_CHARACTERS = 4
"""How many trailing characters of a secret may be shown (`••••abcd`)."""

HOW_TO_SET = (
    'Set the secret_key setting first: SYNAPSE_SECRET_KEY in the environment or secret_key in '
    "[tool.synapse] (print a new key with 'synapse registry new-key')."
)


class NoSecretKey(RuntimeError):
    """A secret was to be stored or read and no `secret_key` is set."""

    def __init__(self) -> None:
        super().__init__(f'No secret key is set, so secrets cannot be stored or read. {HOW_TO_SET}')


class BadSecretKey(ValueError):
    """The `secret_key` setting does not hold Fernet keys."""


class UndecryptableSecret(RuntimeError):
    """A stored secret was encrypted under a key the `secret_key` setting does not hold."""


def new_key() -> str:
    """A fresh random key for the `secret_key` setting."""
    return Fernet.generate_key().decode()


def last_four(secret: str) -> str:
    """What may be shown of a secret: its last four characters (fewer for a short one)."""
    return secret[-SHOWN_CHARACTERS:] if len(secret) > SHOWN_CHARACTERS else ''


@dataclass(frozen=True)
class SecretBox:
    """Encrypts and decrypts secrets under the configured keys."""

    keys: tuple[str, ...]

    @classmethod
    def from_setting(cls, value: SecretStr | str | None) -> SecretBox:
        """The box for a `secret_key` setting (empty when it is unset)."""
        text = value.get_secret_value() if isinstance(value, SecretStr) else (value or '')
        keys = tuple(part.strip() for part in text.split(',') if part.strip())
        for index, key in enumerate(keys):
            try:
                Fernet(key)
            except (ValueError, TypeError) as exc:
                raise BadSecretKey(
                    f'secret_key: key {index + 1} is not a Fernet key (32 url-safe base64-encoded bytes). '
                    "Print one with 'synapse registry new-key'."
                ) from exc
        remember(*keys)
        return cls(keys)

    @property
    def ready(self) -> bool:
        """Whether a key is set."""
        return bool(self.keys)

    def _fernet(self) -> MultiFernet:
        if not self.keys:
            raise NoSecretKey()
        return MultiFernet([Fernet(key) for key in self.keys])

    def encrypt(self, secret: str) -> str:
        """The ciphertext of `secret` under the first key."""
        token = self._fernet().encrypt(secret.encode()).decode()
        remember(secret)
        return token

    def decrypt(self, token: str) -> str:
        """The secret behind `token`; `UndecryptableSecret` when no configured key opens it."""
        try:
            secret = self._fernet().decrypt(token.encode()).decode()
        except InvalidToken as exc:
            raise UndecryptableSecret(
                'A stored secret cannot be decrypted with the configured secret_key: it was stored '
                'under another key. Put that key back in secret_key (after the current one).'
            ) from exc
        remember(secret)
        return secret

    def seal(self, data: str) -> str:
        """The ciphertext of `data` under the first key. For stored data rather than a secret: unlike
        `encrypt`, the text is not remembered as a secret to scrub from what Synapse shows."""
        return self._fernet().encrypt(data.encode()).decode()

    def unseal(self, token: str) -> str:
        """The data `seal` encrypted; `UndecryptableSecret` when no configured key opens it."""
        try:
            return self._fernet().decrypt(token.encode()).decode()
        except InvalidToken as exc:
            raise UndecryptableSecret(
                'Stored data cannot be decrypted with the configured secret_key: it was stored under '
                'another key. Put that key back in secret_key (after the current one).'
            ) from exc

    def rotate(self, token: str) -> str:
        """`token` re-encrypted under the first key (decrypted with any)."""
        try:
            return self._fernet().rotate(token.encode()).decode()
        except InvalidToken as exc:
            raise UndecryptableSecret(
                'A stored secret cannot be re-encrypted: none of the keys in secret_key opens it.'
            ) from exc
