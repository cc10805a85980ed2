"""The extension seam of Synapse itself: hooks for routes, dashboard areas, jobs, tables, commands."""

from .hookspecs import DashboardArea, Job, Root, hookimpl
from .manager import ENTRY_POINT_GROUP, PluginError, PluginManager, plugin_manager

__all__ = [
    'ENTRY_POINT_GROUP',
    'DashboardArea',
    'Job',
    'PluginError',
    'PluginManager',
    'Root',
    'hookimpl',
    'plugin_manager',
]
