"""The HTTP side of Synapse: the FastAPI app factory, its routes and the dashboard."""

from .context import SynapseContext

__all__ = ['SynapseContext']
