"""Synapse: a workbench and runtime for pydantic-ai agents.

`synapse serve` discovers the agents in a project and opens a dashboard to chat with them and
inspect every tool call, token and cost; `synapse_agents.mount(app, '/synapse', authorize=...)`
serves the same dashboard inside your own FastAPI or Starlette application; `Synapse` runs an app's
conversations with its agents through the same engine, scoped by tenant, actor and subject
(see docs/runtime.md).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._version import __version__

# The public names; docs/runtime.md lists them (and the public modules), a test holds the two equal.
__all__ = [
    'AppConversation',
    'ApprovalPending',
    'ConversationNotFound',
    'Decision',
    'DecisionsInvalid',
    'Fired',
    'NotAwaiting',
    'PausedCall',
    'Reply',
    'Scope',
    'ScopeMismatch',
    'SqlConversationStore',
    'Synapse',
    'TaskError',
    'UnknownAgent',
    '__version__',
    'mount',
    'register_deps',
    'tool',
]

if TYPE_CHECKING:
    from .conversations.deferred import Decision, PausedCall
    from .conversations.sql_store import SqlConversationStore
    from .deps_setup import register_deps
    from .errors import (
        ApprovalPending,
        ConversationNotFound,
        DecisionsInvalid,
        NotAwaiting,
        ScopeMismatch,
        TaskError,
        UnknownAgent,
    )
    from .runtime.conversation import AppConversation, Reply
    from .runtime.root import Synapse
    from .scope import Scope
    from .tasks.events import Fired
    from .tools import tool
    from .web.mount import mount

# Imported on first use: agent modules import synapse_agents.demo and the like without paying for
# FastAPI or the store. The errors are re-exported from `synapse_agents.errors`, their one home.
_LAZY = {
    'mount': '.web.mount',
    'Synapse': '.runtime.root',
    'AppConversation': '.runtime.conversation',
    'Reply': '.runtime.conversation',
    'Decision': '.conversations.deferred',
    'PausedCall': '.conversations.deferred',
    'Scope': '.scope',
    'SqlConversationStore': '.conversations.sql_store',
    'tool': '.tools',
    'register_deps': '.deps_setup',
    'Fired': '.tasks.events',
    'ApprovalPending': '.errors',
    'ConversationNotFound': '.errors',
    'DecisionsInvalid': '.errors',
    'NotAwaiting': '.errors',
    'ScopeMismatch': '.errors',
    'TaskError': '.errors',
    'UnknownAgent': '.errors',
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    return getattr(import_module(module, __name__), name)
