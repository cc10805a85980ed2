"""The hook answers that name FastAPI routers and SQLAlchemy tables, checked.

Apart from `manager.py` so that the command line, which asks the plugins only for their commands,
does not import FastAPI or the store's schema to start.
"""

from __future__ import annotations

import pluggy
from fastapi import APIRouter
from sqlalchemy import Table

from ..store.schema import Base
from .manager import PluginError, _answers, _checked, _flat


def plugin_routers(manager: pluggy.PluginManager) -> list[APIRouter]:
    """Every router, the default plugins' first."""
    found = _flat((answer for _, answer in _answers(manager, 'register_routes')), 'register_routes')
    return _checked(found, APIRouter, 'register_routes')


def area_tables(manager: pluggy.PluginManager) -> list[tuple[str, Table]]:
    """Every plugin's tables as (plugin name, table), Synapse's own areas' first: asking for them
    loads each area's tables onto the store's metadata and into its table registry (the store
    imports no area). Each must be on the store's metadata."""
    found: list[tuple[str, Table]] = []
    for name, answer in _answers(manager, 'register_tables'):
        for table in _checked(_flat([answer], 'register_tables'), Table, 'register_tables'):
            if table.metadata is not Base.metadata:
                raise PluginError(
                    f'plugin {name!r}: table {table.name!r} is not on the store metadata '
                    '(declare it on synapse_agents.store.schema.Base.metadata)'
                )
            found.append((name, table))
    return found


def plugin_tables(manager: pluggy.PluginManager) -> list[tuple[str, Table]]:
    """The installed plugins' tables (`area_tables` without Synapse's own areas)."""
    defaults = set(getattr(manager, 'defaults', []))
    return [(name, table) for name, table in area_tables(manager) if name not in defaults]
