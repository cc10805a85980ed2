"""Synapse's store: SQLAlchemy models, the engine, Alembic migrations and repositories."""

from .engine import create_store_engine
from .migrate import current_revision, head_revision, upgrade
from .repository import DeletionReport, Store
from .schema import Base, Conversation, LlmCall, Message, ToolInvocation

__all__ = [
    'Base',
    'Conversation',
    'DeletionReport',
    'LlmCall',
    'Message',
    'Store',
    'ToolInvocation',
    'create_store_engine',
    'current_revision',
    'head_revision',
    'upgrade',
]
