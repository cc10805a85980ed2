"""Privacy as a plugin: the `privacy_vaults` table, and `Privacy` on every turn when the
`privacy_enabled` setting is on (`turns.install`, done when the plugin is loaded: a root that loads
Synapse's plugins never runs a turn without it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..plugins.hookspecs import hookimpl
from ..store.schema import tables_declared_in
from . import tables, turns

if TYPE_CHECKING:
    from sqlalchemy import Table

turns.install()


@hookimpl
def register_tables() -> Sequence[Table]:
    """The conversations' vaults."""
    return tables_declared_in(tables.__name__)
