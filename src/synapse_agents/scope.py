"""Whose turn it is: the tenant, the actor and the subject of a conversation, in the app's words.

A `Scope` is fixed when a conversation is opened (stored on its row) and travels with every turn
of it. Capabilities read it from the run context, never from a global:

    from synapse_agents.scope import Scope

    async def before_model_request(self, ctx, request_context):
        scope = Scope.of(ctx)          # Scope(tenant=('org', 'acme'), actor=('user', '42'), ...)

The engine passes it in the run's `metadata` (under `synapse.scope`, as plain JSON), so it reaches
every hook, tool and instruction function of the run and survives anything that serialises the
run context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai import RunContext

from .corrupt import CorruptRow
from .errors import InvalidScope, ScopeMismatch

Ref = tuple[str, str]
"""A `(type, id)` pair, such as `('user', '42')`."""

METADATA_KEY = 'synapse.scope'
"""Where the scope sits in the run's `metadata`."""

AXES = ('tenant', 'actor', 'subject')
MAX_LENGTH = 255
"""The longest type or id the conversation's columns hold."""


def _check(axis: str, value: object) -> Ref | None:
    if value is None:
        return None
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise InvalidScope(f'{axis}: expected a (type, id) pair, got {value!r:.80}.')
    for name, part in zip(('type', 'id'), value, strict=True):
        if not isinstance(part, str) or not part:
            raise InvalidScope(f'{axis} {name}: expected a non-empty string, got {part!r:.80}.')
        if len(part) > MAX_LENGTH:
            raise InvalidScope(f'{axis} {name}: {len(part)} characters is more than {MAX_LENGTH}.')
        if '\x00' in part:
            raise InvalidScope(f'{axis} {name}: NUL characters are not accepted.')
    if ':' in value[0]:
        # `type:id` keys (the ledger, limits, filters) are read at the first colon.
        raise InvalidScope(f"{axis} type: a type holds no ':' (an id may), got {value[0]!r:.80}.")
    return (value[0], value[1])


@dataclass(frozen=True, slots=True)
class Scope:
    """The tenant, actor and subject of a conversation, each an optional `(type, id)` pair."""

    tenant: Ref | None = None
    actor: Ref | None = None
    subject: Ref | None = None

    def __post_init__(self) -> None:
        for axis in AXES:
            object.__setattr__(self, axis, _check(axis, getattr(self, axis)))

    @property
    def empty(self) -> bool:
        """Whether no axis is set (the playground's scope)."""
        return self.tenant is None and self.actor is None and self.subject is None

    def columns(self) -> dict[str, str | None]:
        """The conversation row's `tenant_type`, `tenant_id`, ... `subject_id` values."""
        values: dict[str, str | None] = {}
        for axis in AXES:
            ref: Ref | None = getattr(self, axis)
            values[f'{axis}_type'] = ref[0] if ref is not None else None
            values[f'{axis}_id'] = ref[1] if ref is not None else None
        return values

    @classmethod
    def from_columns(cls, row: Any) -> Scope:
        """The scope stored on a conversation row (an object with the six columns as attributes)."""
        parts: dict[str, Ref | None] = {}
        for axis in AXES:
            kind, ident = getattr(row, f'{axis}_type', None), getattr(row, f'{axis}_id', None)
            parts[axis] = (kind, ident) if kind is not None and ident is not None else None
        return cls(**parts)

    @classmethod
    def stored(cls, row: Any, table: str) -> Scope:
        """`from_columns` for a row of `table` (it has an `id`); `CorruptRow` naming it when its stored
        scope is not one Synapse would write (a type holding ':', edited by hand or older)."""
        problem = scope_problem(row)
        if problem is not None:
            raise CorruptRow(table, row.id, problem)
        return cls.from_columns(row)

    def as_json(self) -> dict[str, list[str] | None]:
        """The scope as plain JSON, as it travels in the run's metadata."""
        return {axis: list(ref) if (ref := getattr(self, axis)) is not None else None for axis in AXES}

    @classmethod
    def from_json(cls, data: Any) -> Scope:
        """The inverse of `as_json` (an empty scope for anything else)."""
        if not isinstance(data, dict):
            return cls()
        return cls(**{axis: _pair(data.get(axis)) for axis in AXES})

    def continued_with(self, asked: Scope, conversation_id: str) -> Scope:
        """The scope a turn of a conversation stored with this scope runs with, when `asked` for.

        A conversation keeps its tenant and subject: one asked for that is not its own raises
        `ScopeMismatch`. The actor is who talks now: the one asked for, else the stored one.
        """
        for axis in ('tenant', 'subject'):
            wanted = getattr(asked, axis)
            if wanted is not None and wanted != getattr(self, axis):
                raise ScopeMismatch(
                    f'Conversation {conversation_id!r} belongs to another {axis}: a conversation '
                    'keeps the tenant and subject it was opened with (its scope).'
                )
        return Scope(tenant=self.tenant, actor=asked.actor or self.actor, subject=self.subject)

    def label(self, axis: str) -> str | None:
        """One axis as `type:id` (None when it is not set), as the ledger's `user` column keeps the actor.

        A type holds no colon, so the key is read back at its first colon: one key, one pair."""
        ref: Ref | None = getattr(self, axis)
        return f'{ref[0]}:{ref[1]}' if ref is not None else None

    @classmethod
    def of(cls, ctx: RunContext[Any]) -> Scope:
        """The scope of the run `ctx` belongs to (empty when the run was not started by Synapse)."""
        metadata = ctx.metadata or {}
        return cls.from_json(metadata.get(METADATA_KEY))


def parse_label(axis: str, text: str) -> Ref:
    """The `(type, id)` pair a `type:id` label names (read at the first colon); `InvalidScope` saying
    what is wrong otherwise."""
    kind, colon, ident = text.partition(':')
    if not colon:
        raise InvalidScope(f"{axis}: expected 'type:id', got {text!r:.80}.")
    pair = _check(axis, (kind, ident))
    assert pair is not None
    return pair


def scope_problem(row: Any) -> str | None:
    """What is wrong with the scope stored on `row` (six `<axis>_type`/`<axis>_id` attributes), or None."""
    try:
        Scope.from_columns(row)
    except InvalidScope as exc:
        return str(exc).rstrip('.')
    return None


def pairs_problem(tenant: Any, actor: Any, subject: Any) -> str | None:
    """What is wrong with a stored scope read as pairs (`conversations.rows.ConversationSummary`), or None."""
    try:
        Scope(tenant, actor, subject)
    except InvalidScope as exc:
        return str(exc).rstrip('.')
    return None


def _pair(value: Any) -> Ref | None:
    if isinstance(value, list | tuple) and len(value) == 2:
        return (value[0], value[1])
    return None
