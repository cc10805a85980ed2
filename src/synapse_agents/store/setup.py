"""Opening the store for a command: the embedded SQLite default migrates itself."""

from __future__ import annotations

from ..errors import StoreNotReady
from ..settings import Settings
from .migrate import current_revision, head_revision, upgrade
from .repository import Store


def open_store(settings: Settings, *, auto_upgrade: bool = True) -> Store:
    """Open the configured store, ready for use.

    SQLite is brought up to date automatically (it is Synapse's own file). A PostgreSQL database
    may be shared, so its schema changes only through `synapse db upgrade`; until then this
    raises `StoreNotReady` with the command to run.
    """
    store = Store.open(settings.resolved_database_url, settings.attachments_dir)
    head = head_revision()
    if store.dialect == 'sqlite' and auto_upgrade:
        upgrade(store.engine)
        return store
    current = current_revision(store.engine)
    if current != head:
        store.close()
        state = 'has no Synapse tables' if current is None else f'is at revision {current}'
        raise StoreNotReady(
            f'the {store.dialect} database {state}; this Synapse needs {head}: run `synapse db upgrade`'
        )
    return store
