"""Synapse: a workbench and runtime for pydantic-ai agents.

`synapse serve` discovers the agents in a project and opens a dashboard to chat with them and
inspect every tool call, token and cost; the runtime pieces are pydantic-ai capabilities and stores.
"""

__version__ = '0.1.0'

__all__ = ['__version__']
