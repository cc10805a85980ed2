"""Agent discovery: find every `pydantic_ai.Agent` in a project, safely, with hot reload.

`Catalog(targets, project_root).scan()` imports the targets (modules, `module:attribute`, `.py`
files, folders, agent spec files), lists every module-level agent with a stable slug and its full
`AgentInfo`, and reports what could not be loaded as problems. A second scan re-imports only the
files that changed. `degraded_features()` lists what discovery cannot do with the installed
pydantic-ai (a private name it reads was renamed). See docs/discovery.md.
"""

from ._pydantic_ai_internals import degraded_features
from .agent_info import AgentCard, AgentInfo, AgentList, AgentProblem, DiscoveryProblem
from .catalog import Catalog, CatalogSnapshot, DiscoveredAgent
from .degraded import DegradedFeature

__all__ = [
    'AgentCard',
    'AgentInfo',
    'AgentList',
    'AgentProblem',
    'Catalog',
    'CatalogSnapshot',
    'DegradedFeature',
    'DiscoveredAgent',
    'DiscoveryProblem',
    'degraded_features',
]
