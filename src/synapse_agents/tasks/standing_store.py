"""Standing agents kept in the store: create, read, change, pause, resume and remove them.

Inputs are validated here, so the HTTP API, the CLI and a program refuse the same things in the
same words: a valid cron expression and IANA time zone (`schedule.Schedule`), event names, a
debounce of 0 or more seconds, `type:id` scopes. An agent with neither a schedule nor events runs
only when asked ("run now"). Whether the agent exists is checked by the caller
(`agents.check_agent`, which needs the catalog). Blocking: call from a thread.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import delete, select

from ..store.ids import is_valid_id
from ..store.schema import utcnow
from .errors import field_error, not_found
from .schedule import Schedule, ScheduleError, time_zone
from .tables import StandingAgent, StandingAgentEvent

if TYPE_CHECKING:
    from ..store import Store

EVENT_PATTERN = r'^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,99}$'
MAX_EVENTS = 20
MAX_DEBOUNCE = 7 * 24 * 3600

EventName = Annotated[
    str,
    Field(pattern=EVENT_PATTERN, description='An event name: letters, digits and _ . : / -, at most 100.'),
]
RefText = Annotated[
    str,
    Field(
        min_length=3,
        max_length=511,
        pattern=r'^[^:\x00]{1,255}:[^\x00]{1,255}$',
        description='`type:id`, e.g. `org:acme`.',
    ),
]


class StandingInput(BaseModel):
    """A standing agent to create."""

    model_config = ConfigDict(extra='forbid')

    name: str = Field(min_length=1, max_length=100, pattern=r'\S')
    agent: str = Field(min_length=1, max_length=255, description="A code agent's slug or `config:<key>`.")
    instruction: str = Field(min_length=1, max_length=20_000, pattern=r'\S')
    tenant: RefText | None = None
    subject: RefText | None = None
    cron: str | None = Field(None, max_length=100, description='Five cron fields or a nickname (`@daily`).')
    timezone: str = Field('UTC', max_length=64)
    events: list[EventName] = Field(default_factory=list, max_length=MAX_EVENTS)
    debounce_seconds: int = Field(0, ge=0, le=MAX_DEBOUNCE)
    enabled: bool = True

    @field_validator('*')
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and '\x00' in value:
            raise ValueError('NUL characters are not accepted')
        return value


class StandingPatch(BaseModel):
    """What to change on a standing agent (fields left out stay; `cron: null` removes the schedule)."""

    model_config = ConfigDict(extra='forbid')

    name: str | None = Field(None, min_length=1, max_length=100, pattern=r'\S')
    agent: str | None = Field(None, min_length=1, max_length=255)
    instruction: str | None = Field(None, min_length=1, max_length=20_000, pattern=r'\S')
    tenant: RefText | None = None
    subject: RefText | None = None
    cron: str | None = Field(None, max_length=100)
    timezone: str | None = Field(None, max_length=64)
    events: list[EventName] | None = Field(None, max_length=MAX_EVENTS)
    debounce_seconds: int | None = Field(None, ge=0, le=MAX_DEBOUNCE)
    enabled: bool | None = None

    @field_validator('*')
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and '\x00' in value:
            raise ValueError('NUL characters are not accepted')
        return value


def split_ref(value: str | None) -> tuple[str | None, str | None]:
    """`type:id` as its two parts (None, None for none)."""
    if not value:
        return None, None
    kind, _colon, ident = value.partition(':')
    return kind, ident


def ref_text(kind: str | None, ident: str | None) -> str | None:
    return f'{kind}:{ident}' if kind is not None and ident is not None else None


def checked_schedule(cron: str | None, zone: str, now: datetime | None = None) -> Schedule | None:
    """The schedule (None without `cron`), or a 422 naming the field."""
    try:
        if not cron or not cron.strip():
            time_zone(zone)
            return None
        return Schedule.parse(cron, zone, now=now)
    except ScheduleError as exc:
        raise field_error(exc.field, str(exc)) from None


def _apply(row: StandingAgent, values: dict[str, Any], now: datetime) -> None:
    before = (row.cron, row.timezone, row.enabled)
    for name in ('name', 'instruction', 'debounce_seconds', 'enabled', 'timezone'):
        if name in values:
            setattr(row, name, values[name])
    if 'agent' in values:
        row.agent_key = values['agent']
    if 'tenant' in values:
        row.tenant_type, row.tenant_id = split_ref(values['tenant'])
    if 'subject' in values:
        row.subject_type, row.subject_id = split_ref(values['subject'])
    if 'cron' in values:
        row.cron = ' '.join(values['cron'].split()) if values['cron'] and values['cron'].strip() else None
    if 'events' in values:
        row.events = list(dict.fromkeys(values['events']))
    schedule = checked_schedule(row.cron, row.timezone, now)
    if schedule is None or not row.enabled:
        row.next_fire_at = None
    elif (row.cron, row.timezone, row.enabled) != before or row.next_fire_at is None:
        # A new, changed or resumed schedule counts from now: what it would have fired while it
        # was paused or different is not owed. An unchanged one keeps its due slot.
        row.next_fire_at = schedule.next_after(now)
    row.updated_at = now


def _sync_events(session: Any, row: StandingAgent) -> None:
    session.execute(delete(StandingAgentEvent).where(StandingAgentEvent.standing_agent_id == row.id))
    tenant_key = ref_text(row.tenant_type, row.tenant_id) or ''
    for event in row.events:
        session.add(StandingAgentEvent(standing_agent_id=row.id, event=event, tenant_key=tenant_key))


def create(store: Store, data: StandingInput, *, now: datetime | None = None) -> StandingAgent:
    """Store a new standing agent (its agent already checked by the caller)."""
    moment = now or utcnow()
    row = StandingAgent(
        name=data.name.strip(), agent_key=data.agent, instruction=data.instruction, created_at=moment
    )
    row.tenant_type = row.tenant_id = row.subject_type = row.subject_id = row.cron = None
    row.timezone, row.events, row.debounce_seconds, row.enabled = 'UTC', [], 0, True
    _apply(row, data.model_dump() | {'name': data.name.strip()}, moment)
    with store.write() as session:
        session.add(row)
        session.flush()
        _sync_events(session, row)
    return row


def get(store: Store, standing_id: str) -> StandingAgent:
    """The standing agent, or a 404."""
    if not is_valid_id(standing_id):
        raise not_found('standing agent', standing_id)
    with store.read() as session:
        row = session.get(StandingAgent, standing_id)
        if row is None:
            raise not_found('standing agent', standing_id)
        session.expunge(row)
        return row


def list_all(store: Store) -> list[StandingAgent]:
    """Every standing agent, newest first."""
    with store.read() as session:
        rows = list(session.scalars(select(StandingAgent).order_by(StandingAgent.id.desc())))
        session.expunge_all()
        return rows


def update(
    store: Store, standing_id: str, patch: StandingPatch, *, now: datetime | None = None
) -> StandingAgent:
    """Change the fields `patch` sets; 404 when it does not exist."""
    values = patch.model_dump(exclude_unset=True)
    for required in ('name', 'agent', 'instruction', 'timezone', 'events', 'debounce_seconds', 'enabled'):
        if required in values and values[required] is None:
            raise field_error(required, f'{required}: may not be null.')
    if 'name' in values:
        values['name'] = values['name'].strip()
    moment = now or utcnow()
    if not is_valid_id(standing_id):
        raise not_found('standing agent', standing_id)
    with store.write() as session:
        row = session.get(StandingAgent, standing_id, with_for_update=True)
        if row is None:
            raise not_found('standing agent', standing_id)
        _apply(row, values, moment)
        if {'events', 'tenant'} & values.keys():
            _sync_events(session, row)
        session.flush()
        session.expunge(row)
        return row


def set_enabled(store: Store, standing_id: str, enabled: bool) -> StandingAgent:
    """Pause (`False`) or resume (`True`); a resumed schedule fires from now on, never to catch up."""
    return update(store, standing_id, StandingPatch(enabled=enabled))


def remove(store: Store, standing_id: str) -> None:
    """Delete the standing agent and its event subscriptions; its tasks stay (they are history)."""
    if not is_valid_id(standing_id):
        raise not_found('standing agent', standing_id)
    with store.write() as session:
        row = session.get(StandingAgent, standing_id)
        if row is None:
            raise not_found('standing agent', standing_id)
        session.execute(delete(StandingAgentEvent).where(StandingAgentEvent.standing_agent_id == standing_id))
        session.delete(row)
