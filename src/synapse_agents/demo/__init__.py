"""The offline demo model and the example agents that ``synapse serve --demo`` runs.

``DemoModel`` needs no key and no network; ``DEMO_TRIGGERS`` lists the phrases that make it fail
like a provider (or show a behaviour). The agents are ordinary ``pydantic_ai.Agent`` instances.
"""

from ._triggers import DEMO_TRIGGERS, DemoTrigger
from .agents import (
    deps_agent,
    fallback_agent,
    flaky_agent,
    make_account_deps,
    orchestrator,
    research_agent,
    structured_agent,
    summariser,
    support_agent,
)
from .approvals import ops_agent
from .model import DEMO_MODEL_NAME, DemoModel

__all__ = [
    'DEMO_MODEL_NAME',
    'DEMO_TRIGGERS',
    'DemoModel',
    'DemoTrigger',
    'deps_agent',
    'fallback_agent',
    'flaky_agent',
    'make_account_deps',
    'ops_agent',
    'orchestrator',
    'research_agent',
    'structured_agent',
    'summariser',
    'support_agent',
]
