"""``ops_agent``: tools a person must approve, and a tool whose result a person supplies.

``restart_service`` and ``delete_backup`` need approval (``requires_approval=True``);
``ask_on_call`` is answered outside the run (it raises ``CallDeferred``). The agent's output types
include ``DeferredToolRequests``, as pydantic-ai requires of an agent whose run may pause; the
playground shows the approval card and resumes the run with the decisions.
"""

from __future__ import annotations

from pydantic_ai import Agent, CallDeferred, DeferredToolRequests

from .model import DemoModel

__all__ = ['RESTARTS', 'ops_agent']

RESTARTS: list[str] = []
"""The services ``restart_service`` restarted in this process (what an approval lets happen)."""

ops_agent = Agent(
    DemoModel(),
    name='ops_agent',
    description='Runs operations that a person approves first: restarts, deleting backups, paging on-call.',
    instructions='Use the tools to operate the services; restarts and deletions wait for approval.',
    output_type=[str, DeferredToolRequests],
    metadata={
        'synapse.suggestions': [
            'Restart the billing service and delete backup 7.',
            'Ask on-call whether the deploy can go ahead.',
        ]
    },
)


@ops_agent.tool_plain(requires_approval=True)
def restart_service(service: str) -> str:
    """Restart a running service (needs approval).

    Args:
        service: The service to restart, such as billing.
    """
    RESTARTS.append(service)
    return f'{service} restarted'


@ops_agent.tool_plain(requires_approval=True)
def delete_backup(backup_id: int) -> str:
    """Delete a stored backup by its number (needs approval).

    Args:
        backup_id: The backup number.
    """
    return f'backup {backup_id} deleted'


@ops_agent.tool_plain
def ask_on_call(question: str) -> str:
    """Ask the on-call engineer a question; a person answers it outside the run.

    Args:
        question: What to ask.
    """
    raise CallDeferred
