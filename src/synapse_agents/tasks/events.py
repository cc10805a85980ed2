"""Events: `fire(event, tenant, subject, context)` starts every standing agent listening to it.

An agent hears an event in its own tenant (an agent with no tenant hears it in every tenant, and
its run takes the event's tenant); the event's subject and context travel to the run. The same
event on the same subject in the same tenant within an agent's `debounce_seconds` runs once: the
first firing queues a task that starts when the window ends, and every firing inside the window
folds into it (its context becomes the latest one, `fires` counts them), so one logical change
saved in three statements is one run and one bill. A firing never folds into a task of another
tenant: that task runs, is stored and is billed as its own tenant. The fold is decided under a
lock on the standing agent's row, so concurrent firings on several servers fold the same way.
Blocking.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, insert, select, update

from ..errors import InvalidScope
from ..scope import Ref, Scope
from ..store.schema import utcnow
from .errors import field_error
from .queue import task_values
from .standing_store import EVENT_PATTERN
from .tables import AgentTask, StandingAgent, StandingAgentEvent

if TYPE_CHECKING:
    from ..store import Store

MAX_CONTEXT_BYTES = 64 * 1024


@dataclass
class Fired:
    """What a firing did: the tasks it queued and the queued tasks it folded into."""

    event: str
    queued: list[str] = field(default_factory=list)
    debounced: list[str] = field(default_factory=list)
    starts: dict[str, datetime] = field(default_factory=dict)
    """When each queued task may start (the end of its debounce window)."""
    notice: str | None = None
    """Set when the queued tasks could not be handed to the workers yet (a broker that did not
    answer): they stay queued and are published when it answers."""

    @property
    def tasks(self) -> list[str]:
        """Every task that will run for this firing."""
        return self.queued + self.debounced


def check_event(event: Any) -> str:
    """The event name, or a 422 saying what is wrong with it."""
    if not isinstance(event, str) or not re.fullmatch(EVENT_PATTERN, event):
        raise field_error(
            'event',
            f'event: {event!r:.80} is not an event name (letters, digits and _ . : / -, starting with a '
            'letter or digit, at most 100 characters).',
        )
    return event


def check_context(context: Any) -> dict[str, Any] | None:
    """The context as plain JSON (an object), or a 422."""
    if context is None:
        return None
    if not isinstance(context, dict):
        raise field_error('context', f'context: expected a JSON object, got {type(context).__name__}.')
    try:
        text = json.dumps(context, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        raise field_error('context', f'context: not JSON ({exc}).') from None
    if len(text.encode()) > MAX_CONTEXT_BYTES:
        raise field_error('context', f'context: more than {MAX_CONTEXT_BYTES // 1024} KiB of JSON.')
    if '\\u0000' in text:
        raise field_error('context', 'context: NUL characters are not accepted.')
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def check_scope(tenant: Any, subject: Any) -> Scope:
    try:
        return Scope(tenant=tenant, subject=subject)
    except InvalidScope as exc:
        name = 'tenant' if str(exc).startswith('tenant') else 'subject'
        raise field_error(name, str(exc)) from None


def fire(
    store: Store,
    event: str,
    *,
    tenant: Ref | None = None,
    subject: Ref | None = None,
    context: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> Fired:
    """Start (or fold into the queued run of) every enabled standing agent listening to `event`."""
    name = check_event(event)
    scope = check_scope(tenant, subject)
    payload = check_context(context)
    moment = now or utcnow()
    tenant_key = scope.label('tenant') or ''
    fired = Fired(name)
    with store.read() as session:
        listeners = list(
            session.scalars(
                select(StandingAgentEvent.standing_agent_id)
                .where(StandingAgentEvent.event == name, StandingAgentEvent.tenant_key.in_({tenant_key, ''}))
                .distinct()
            )
        )
    for standing_id in sorted(listeners):
        _fire_one(store, standing_id, name, scope, payload, moment, fired)
    return fired


def _fire_one(
    store: Store,
    standing_id: str,
    event: str,
    scope: Scope,
    context: dict[str, Any] | None,
    moment: datetime,
    fired: Fired,
) -> None:
    with store.write() as session:
        standing = session.get(StandingAgent, standing_id, with_for_update=True)
        if standing is None or not standing.enabled or event not in (standing.events or []):
            return
        # The run's tenant and subject (the event's, else the agent's own) key the queued task.
        own = f'{standing.subject_type}:{standing.subject_id}' if standing.subject_type is not None else ''
        subject_key = scope.label('subject') or own
        own_tenant = (
            (standing.tenant_type, standing.tenant_id)
            if standing.tenant_type is not None and standing.tenant_id is not None
            else None
        )
        tenant = scope.tenant or own_tenant
        window = timedelta(seconds=standing.debounce_seconds)
        if standing.debounce_seconds > 0:
            pending = session.scalar(
                select(AgentTask.id)
                .where(
                    AgentTask.standing_agent_id == standing_id,
                    AgentTask.event == event,
                    AgentTask.subject_key == subject_key,
                    *_same_tenant(tenant),
                    AgentTask.status == 'queued',
                    AgentTask.queued_at > moment - window,
                )
                .order_by(AgentTask.id.desc())
                .limit(1)
            )
            if pending is not None:
                session.execute(
                    update(AgentTask)
                    .where(AgentTask.id == pending)
                    .values(fires=AgentTask.fires + 1, context=context)
                )
                fired.debounced.append(pending)
                return
        values = task_values(
            standing,
            trigger='event',
            now=moment,
            event=event,
            context=context,
            tenant=scope.tenant,
            subject=scope.subject,
            not_before=moment + window,
        )
        session.execute(insert(AgentTask).values(**values))
        fired.queued.append(str(values['id']))
        fired.starts[str(values['id'])] = values['not_before']


def _same_tenant(tenant: Ref | None) -> list[ColumnElement[bool]]:
    """Conditions matching the queued tasks of `tenant` (of no tenant, for None): a firing folds
    only into a task of its own tenant, even for an agent that hears every tenant."""
    if tenant is None:
        return [AgentTask.tenant_type.is_(None), AgentTask.tenant_id.is_(None)]
    return [AgentTask.tenant_type == tenant[0], AgentTask.tenant_id == tenant[1]]
