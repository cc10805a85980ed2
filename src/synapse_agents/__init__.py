"""Synapse: a workbench and runtime for pydantic-ai agents.

`synapse serve` discovers the agents in a project and opens a dashboard to chat with them and
inspect every tool call, token and cost; `synapse_agents.mount(app, '/synapse', authorize=...)`
serves the same dashboard inside your own FastAPI or Starlette application.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = '0.1.0'

__all__ = ['__version__', 'mount']

if TYPE_CHECKING:
    from .web.mount import mount


def __getattr__(name: str) -> Any:
    # The web stack is imported on first use: agent modules import synapse_agents.demo and
    # the like without paying for FastAPI.
    if name == 'mount':
        from .web.mount import mount

        return mount
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
