"""Reading and writing rules, and choosing the rules of one conversation's scope.

Every function is blocking (call it from a thread on an event loop). Inputs are checked before
anything is written: a bad one raises `RuleInvalid` naming the field, an unknown id `RuleNotFound`.
Axes are `type:id` labels (`scope.parse_label`), as the ledger and the limits keep them.

`in_scope` is what a prompt gets: the enabled rules of the conversation's tenant that are about the
tenant as a whole or its subject, and that apply to everyone (shared) or to its actor (personal).
Nothing of another tenant is ever read: the tenant is part of every query, never a filter after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, or_, select

from ..errors import InvalidScope, RuleInvalid, RuleNotFound
from ..scope import Scope, parse_label
from ..store import Store
from ..store.ids import is_valid_id, shown_id
from ..store.schema import utcnow
from .tables import Rule

MAX_TEXT = 4000
"""The longest rule text, in characters: a rule is a sentence or two, not a document."""
PRIORITY_RANGE = (-1_000_000, 1_000_000)
AXES = ('tenant', 'subject', 'applies_to')


@dataclass(frozen=True)
class RuleInput:
    """A new rule as asked for (checked by `add`)."""

    tenant: str
    text: str
    subject: str | None = None
    applies_to: str | None = None
    priority: int = 0
    enabled: bool = True
    created_by: str | None = None


@dataclass(frozen=True)
class RuleFilters:
    """Which rules a listing shows; None: any. `subject`/`applies_to` of `''`: only rules without one."""

    tenant: str | None = None
    subject: str | None = None
    applies_to: str | None = None
    enabled: bool | None = None


@dataclass(frozen=True)
class ScopedRules:
    """The rules a conversation's prompt gets, each list in the order it is rendered."""

    shared: list[str] = field(default_factory=list)
    """Rules for everyone in the scope: mandatory."""
    personal: list[str] = field(default_factory=list)
    """Rules for the conversation's actor: their preferences."""

    def __bool__(self) -> bool:
        return bool(self.shared or self.personal)


def check_label(
    name: str,
    value: Any,
    *,
    required: bool = False,
    whose: str = 'rule',
    error: type[RuleInvalid] = RuleInvalid,
) -> str | None:
    """`value` as a stored `type:id` label, or `error` naming the field (memories share it)."""
    if value is None or value == '':
        if required:
            raise error(name, f"required: whose {whose} it is, as 'type:id' (for example 'org:acme').")
        return None
    if not isinstance(value, str):
        raise error(name, f"expected 'type:id' text, got {type(value).__name__}.")
    try:
        kind, ident = parse_label(name, value)
    except InvalidScope as exc:
        raise error(name, str(exc).split(': ', 1)[-1]) from None
    return f'{kind}:{ident}'


def check_text(
    value: Any,
    *,
    field: str = 'text',
    what: str = 'a rule',
    limit: int = MAX_TEXT,
    error: type[RuleInvalid] = RuleInvalid,
) -> str:
    """`value` stripped, or `error` naming `field`: not empty, at most `limit` characters, no NUL."""
    if not isinstance(value, str):
        raise error(field, f'expected text, got {type(value).__name__}.')
    text = value.strip()
    if not text:
        raise error(field, f'{what} needs some text.')
    if len(text) > limit:
        raise error(field, f'{len(text)} characters is more than {limit}.')
    if '\x00' in text:
        raise error(field, 'NUL characters are not accepted.')
    return text


def check_priority(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleInvalid('priority', f'expected a whole number, got {value!r:.40}.')
    low, high = PRIORITY_RANGE
    if not low <= value <= high:
        raise RuleInvalid('priority', f'{value} is outside {low}..{high}.')
    return value


def check_enabled(value: Any) -> bool:
    if not isinstance(value, bool):
        raise RuleInvalid('enabled', f'expected true or false, got {value!r:.40}.')
    return value


def check_author(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 511 or '\x00' in value:
        raise RuleInvalid('created_by', 'expected text of at most 511 characters.')
    return value.strip() or None


def add(store: Store, rule: RuleInput) -> Rule:
    """Save a new rule; `RuleInvalid` when an input is wrong."""
    values = {
        'tenant': check_label('tenant', rule.tenant, required=True),
        'subject': check_label('subject', rule.subject),
        'applies_to': check_label('applies_to', rule.applies_to),
        'text': check_text(rule.text),
        'priority': check_priority(rule.priority),
        'enabled': check_enabled(rule.enabled),
        'created_by': check_author(rule.created_by),
    }
    now = utcnow()
    with store.write() as session:
        row = Rule(**values, created_at=now, updated_at=now)
        session.add(row)
        session.flush()
        session.expunge(row)
    return row


_CHECKS = {
    'tenant': lambda v: check_label('tenant', v, required=True),
    'subject': lambda v: check_label('subject', v),
    'applies_to': lambda v: check_label('applies_to', v),
    'text': check_text,
    'priority': check_priority,
    'enabled': check_enabled,
}


def update(store: Store, rule_id: str, changes: dict[str, Any]) -> Rule:
    """Change some of a rule's fields (any of `_CHECKS`); the others stay."""
    unknown = sorted(set(changes) - set(_CHECKS))
    if unknown:
        raise RuleInvalid(unknown[0], f'not a field of a rule (fields: {", ".join(_CHECKS)}).')
    values = {name: _CHECKS[name](value) for name, value in changes.items()}
    _check_id(rule_id)
    with store.write() as session:
        row = session.get(Rule, rule_id)
        if row is None:
            raise RuleNotFound(f'No rule with id {shown_id(rule_id)}.')
        for name, value in values.items():
            setattr(row, name, value)
        if values:
            row.updated_at = utcnow()
        session.flush()
        session.expunge(row)
    return row


def remove(store: Store, rule_id: str) -> Rule:
    """Delete a rule for good (pausing it is `update(..., {'enabled': False})`)."""
    _check_id(rule_id)
    with store.write() as session:
        row = session.get(Rule, rule_id)
        if row is None:
            raise RuleNotFound(f'No rule with id {shown_id(rule_id)}.')
        session.delete(row)
        session.flush()
        session.expunge(row)
    return row


def get(store: Store, rule_id: str) -> Rule:
    _check_id(rule_id)
    with store.read() as session:
        row = session.get(Rule, rule_id)
        if row is None:
            raise RuleNotFound(f'No rule with id {shown_id(rule_id)}.')
        session.expunge(row)
        return row


def listing(store: Store, filters: RuleFilters = RuleFilters()) -> Sequence[Rule]:
    """The rules matching `filters`, by tenant, subject (tenant-wide first), shared before personal,
    then in prompt order."""
    conditions = []
    if filters.tenant is not None:
        conditions.append(Rule.tenant == check_label('tenant', filters.tenant, required=True))
    for name in ('subject', 'applies_to'):
        wanted = getattr(filters, name)
        column = getattr(Rule, name)
        if wanted == '':
            conditions.append(column.is_(None))
        elif wanted is not None:
            conditions.append(column == check_label(name, wanted))
    if filters.enabled is not None:
        conditions.append(Rule.enabled.is_(filters.enabled))
    query = (
        select(Rule)
        .where(*conditions)
        .order_by(
            Rule.tenant,
            Rule.subject.is_not(None),
            Rule.subject,
            Rule.applies_to.is_not(None),
            Rule.applies_to,
            Rule.priority,
            Rule.created_at,
            Rule.id,
        )
    )
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
    return rows


def in_scope(store: Store, scope: Scope) -> ScopedRules:
    """The enabled rules a conversation of `scope` gets (see the module docstring); none without a
    tenant."""
    tenant = scope.label('tenant')
    if tenant is None:
        return ScopedRules()
    subject, actor = scope.label('subject'), scope.label('actor')
    about = (
        Rule.subject.is_(None) if subject is None else or_(Rule.subject.is_(None), Rule.subject == subject)
    )
    whom = (
        Rule.applies_to.is_(None)
        if actor is None
        else or_(Rule.applies_to.is_(None), Rule.applies_to == actor)
    )
    query = (
        select(Rule.applies_to, Rule.text)
        .where(and_(Rule.tenant == tenant, Rule.enabled.is_(True), about, whom))
        .order_by(Rule.priority, Rule.created_at, Rule.id)
    )
    found = ScopedRules()
    with store.read() as session:
        for applies_to, text in session.execute(query):
            (found.shared if applies_to is None else found.personal).append(text)
    return found


def _check_id(rule_id: str) -> None:
    if not is_valid_id(rule_id):
        raise RuleNotFound(f'No rule with id {shown_id(rule_id)}.')
