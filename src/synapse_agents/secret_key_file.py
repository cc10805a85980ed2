"""The secret key kept in `SYNAPSE_HOME/secret_key` when none is configured (outside production).

Storing a provider's API key needs a `secret_key`. A local Synapse without one makes one the first
time a secret is stored: a fresh Fernet key written to `<home>/secret_key` (mode 0600), announced
once in the log. Later starts read it back (`load_settings`). A configured `secret_key` always
wins, and with `env = "production"` no key is ever made or read from the file: there the key is
configuration, set on purpose and backed up with it.

Two processes on one home that both make a key end with one: the key is written to a private
temporary file first and linked into place, which fails when the file already exists; the loser
reads the winner's key.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from pydantic import SecretStr

from .encryption import new_key
from .redaction import remember

KEY_FILE = 'secret_key'
"""The file name in `SYNAPSE_HOME`."""

PRODUCTION = 'production'

logger = logging.getLogger(__name__)


def key_path(home: Path) -> Path:
    """Where the made key lives."""
    return home / KEY_FILE


def stored_key(home: Path, env: str) -> SecretStr | None:
    """The key kept in `home` (never in production), or None when there is none yet."""
    if env == PRODUCTION:
        return None
    try:
        text = key_path(home).read_text(encoding='ascii').strip()
    except FileNotFoundError:
        return None
    if not text:
        return None
    remember(*(part.strip() for part in text.split(',') if part.strip()))
    return SecretStr(text)


def make_key(home: Path) -> SecretStr:
    """The key in `home`, made (mode 0600, announced once) when the file does not exist yet."""
    existing = stored_key(home, env='local')
    if existing is not None:
        return existing
    home.mkdir(parents=True, exist_ok=True)
    path = key_path(home)
    handle, temporary = tempfile.mkstemp(prefix='.secret_key.', dir=home)  # mode 0600
    try:
        with os.fdopen(handle, 'w', encoding='ascii') as file:
            file.write(new_key() + '\n')
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)  # atomic, and refuses to replace a key another process made
        except FileExistsError:
            pass
        else:
            logger.warning(
                'No secret_key is configured: made one in %s to encrypt stored API keys. Back this file '
                'up with the database: without it the stored keys cannot be read.',
                path,
            )
    finally:
        os.unlink(temporary)
    made = stored_key(home, env='local')
    if made is None:
        raise RuntimeError(f'{path} holds no secret key')
    return made
