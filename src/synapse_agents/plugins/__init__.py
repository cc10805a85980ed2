"""The extension seam of Synapse itself: hooks for routes, dashboard areas, jobs, tables, commands."""

from .hookspecs import DashboardArea, hookimpl
from .manager import ENTRY_POINT_GROUP, PluginError, default_manager, plugin_manager

__all__ = [
    'ENTRY_POINT_GROUP',
    'DashboardArea',
    'PluginError',
    'default_manager',
    'hookimpl',
    'plugin_manager',
]
