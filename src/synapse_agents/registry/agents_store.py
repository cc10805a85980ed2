"""Configured agents: create, change (each change a new version), delete, read versions; sandbox cleanup.

Version 1 is written to `agent_config_versions` when the agent is created, and every change that
alters the definition bumps `version` and writes the new definition there too, so every version
that ever answered can be read back (`read.agent_version`). A PATCH that changes nothing makes no
version. Blocking: call from a thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from pydantic import ValidationError
from pydantic_ai import StructuredDict
from pydantic_ai.exceptions import UserError
from sqlalchemy import delete as sql_delete
from sqlalchemy import select
from sqlalchemy.orm import Session

from ..store import Store
from ..store.schema import utcnow
from ..targets.deps_schema import problem as unsafe_part
from .entries import assign, current, exists, found, insert, parse, same_key
from .errors import from_validation, invalid_field
from .schemas import AgentInput, AgentPatch
from .tables import AgentConfig, AgentConfigVersion, Preset, Tone

DEFINITION = (
    'name',
    'description',
    'instructions',
    'preset_key',
    'tone_key',
    'tools',
    'rag_sources',
    'access',
    'spec',
    'is_sandbox',
    'enabled',
)
"""What a version records, and what a PATCH may change."""

SPEC_FIELDS = (
    'output_schema',
    'deps_schema',
    'model_settings',
    'retries',
    'end_strategy',
    'tool_timeout',
    'metadata',
    'capabilities',
)
"""The pydantic-ai `AgentSpec` fields `spec` may set (name, instructions and model come from the agent)."""


def _check_spec(spec: Mapping[str, Any]) -> None:
    from pydantic_ai.agent.spec import AgentSpec

    for name in spec:
        if name not in SPEC_FIELDS:
            raise invalid_field(
                f'body.spec.{name}',
                f'not a spec field an agent may set here (allowed: {", ".join(SPEC_FIELDS)})',
            )
    try:
        AgentSpec.model_validate(dict(spec))
    except ValidationError as exc:
        raise from_validation(exc, 'body.spec') from None
    if spec.get('deps_schema') is not None:
        _check_deps_schema(spec['deps_schema'])
    if spec.get('output_schema') is not None:
        _check_output_schema(spec['output_schema'])


def _check_json_schema(location: str, schema: dict[str, Any]) -> None:
    """Refuse a document that is not a JSON Schema of its dialect, at the keyword that is wrong."""
    if not isinstance(schema.get('$schema', ''), str):
        raise invalid_field(f'{location}.$schema', 'must be the URI of a JSON Schema dialect (a string)')
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        where = '.'.join(str(part) for part in (location, *exc.absolute_path))
        raise invalid_field(where, f'not a valid JSON Schema: {exc.message}') from None


def _check_deps_schema(schema: dict[str, Any]) -> None:
    location = 'body.spec.deps_schema'
    try:
        unsafe = unsafe_part(schema)
    except (AttributeError, TypeError, ValueError):  # too malformed to walk: the check below says why
        unsafe = None
    if unsafe is not None:  # a reference outside it, a reference cycle, a catastrophic pattern
        where, why = unsafe
        raise invalid_field('.'.join(part for part in (location, where) if part), why)
    _check_json_schema(location, schema)


def _check_output_schema(schema: dict[str, Any]) -> None:
    """An output schema is a JSON Schema of an object (pydantic-ai's `StructuredDict`)."""
    location = 'body.spec.output_schema'
    _check_json_schema(location, schema)
    try:
        StructuredDict(schema)
    except (UserError, TypeError, ValueError, AttributeError) as exc:
        raise invalid_field(location, f'not usable as structured output: {exc}') from None


def _check_references(session: Session, entry: AgentInput) -> None:
    if entry.preset_key is not None and not exists(session, Preset, entry.preset_key):
        raise invalid_field('body.preset_key', f'no preset with key {entry.preset_key!r}')
    if entry.tone_key is not None and not exists(session, Tone, entry.tone_key):
        raise invalid_field('body.tone_key', f'no tone with key {entry.tone_key!r}')


def _values(entry: AgentInput) -> dict[str, Any]:
    data = entry.model_dump(include=set(DEFINITION))
    return {name: data[name] for name in DEFINITION}


def _version(key: str, version: int, definition: dict[str, Any]) -> AgentConfigVersion:
    return AgentConfigVersion(agent_key=key, version=version, definition=definition, created_at=utcnow())


def create(store: Store, data: AgentInput | Mapping[str, Any]) -> AgentConfig:
    """Add a configured agent at version 1; `Duplicate` when its key is taken."""
    entry = parse(AgentInput, data)
    _check_spec(entry.spec)
    with store.read() as session:
        _check_references(session, entry)
    values = _values(entry)
    row = AgentConfig(key=entry.key, **values, version=1, created_at=utcnow(), updated_at=utcnow())
    return insert(store, row, _version(entry.key, 1, values))


def update(store: Store, key: str, data: AgentPatch | Mapping[str, Any]) -> AgentConfig:
    """Change a configured agent: a change bumps `version` and records the new definition."""
    patch = parse(AgentPatch, data)
    same_key(key, patch.key)
    changes = patch.changes()
    if 'spec' in changes:
        _check_spec(changes['spec'])
    with store.write() as session:
        row = found(session, AgentConfig, key)
        merged = parse(AgentInput, {'key': key, **current(row, DEFINITION), **changes})
        _check_references(session, merged)
        values = _values(merged)
        if assign(row, values):
            row.version += 1
            row.updated_at = utcnow()
            session.add(_version(key, row.version, values))
    return row


def delete(store: Store, key: str) -> None:
    """Remove a configured agent and its versions."""
    with store.write() as session:
        row = found(session, AgentConfig, key)
        session.execute(sql_delete(AgentConfigVersion).where(AgentConfigVersion.agent_key == key))
        session.delete(row)


def versions(store: Store, key: str) -> Sequence[AgentConfigVersion]:
    """Every stored version of a configured agent, oldest first; `NotFound` for an unknown agent."""
    with store.read() as session:
        found(session, AgentConfig, key)
        query = (
            select(AgentConfigVersion)
            .where(AgentConfigVersion.agent_key == key)
            .order_by(AgentConfigVersion.version)
        )
        rows = list(session.scalars(query))
        session.expunge_all()
        return rows


@dataclass(frozen=True)
class Cleanup:
    """What a sandbox cleanup removed."""

    agents: int
    presets: int
    others: dict[str, int] = field(default_factory=dict)
    """What each `also` cleanup removed, by the name it gave (`workflows`)."""


SandboxSweep = Callable[[Session], tuple[str, int]]
"""A higher area's sandbox cleanup, run in the same transaction: what it removed, by name."""


def cleanup_sandbox(store: Store, also: Sequence[SandboxSweep] = ()) -> Cleanup:
    """Remove every sandbox agent (with its versions) and every sandbox preset no other agent uses,
    after the cleanups of `also` (sandbox workflows and their runs: they name agents, so they go first).

    One transaction. A sandbox preset a kept (non-sandbox) agent still names is kept.
    """
    with store.write() as session:
        others = dict(sweep(session) for sweep in also)
        agents = list(session.scalars(select(AgentConfig.key).where(AgentConfig.is_sandbox.is_(True))))
        if agents:
            session.execute(sql_delete(AgentConfigVersion).where(AgentConfigVersion.agent_key.in_(agents)))
            session.execute(sql_delete(AgentConfig).where(AgentConfig.key.in_(agents)))
        used = select(AgentConfig.preset_key).where(AgentConfig.preset_key.is_not(None))
        presets = list(
            session.scalars(select(Preset.key).where(Preset.is_sandbox.is_(True), Preset.key.not_in(used)))
        )
        if presets:
            session.execute(sql_delete(Preset).where(Preset.key.in_(presets)))
    return Cleanup(agents=len(agents), presets=len(presets), others=others)
