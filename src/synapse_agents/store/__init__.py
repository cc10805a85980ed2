"""Synapse's store: the engine, its sessions, the write queue, the table registry and migrations.

It imports no feature: each area (conversations, accounting, traces, tasks, the registry) defines
its tables on the store's one metadata (`schema.Base`) and declares them in the table registry
(`tables.register_table`).
"""

from .engine import create_store_engine
from .migrate import current_revision, head_revision, upgrade
from .repository import DeletionReport, Store
from .schema import Base

__all__ = [
    'Base',
    'DeletionReport',
    'Store',
    'create_store_engine',
    'current_revision',
    'head_revision',
    'upgrade',
]
