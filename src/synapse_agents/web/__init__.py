"""The HTTP side of Synapse: the FastAPI app factory, its routes and the dashboard."""

from .app import create_app
from .context import SynapseContext

__all__ = ['SynapseContext', 'create_app']
