"""Deps values: what a request sends for an agent with a deps schema, checked against it.

A configured agent may declare a JSON Schema for its deps (`spec.deps_schema`). A chat request then
sends the values as `deps` (a JSON object); they are checked with `jsonschema` (the dialect its
`$schema` names, else draft 2020-12) and, once the turn runs, remembered on the conversation
(`conversations/deps_values.py`), so a later turn that sends none runs with the stored ones. Sending
new values replaces them. `check_values` is the rule:

- values sent for an agent without a schema: refused (`deps_unexpected`);
- none sent and none stored, and the schema has `required` properties: refused (`deps_required`);
- none sent and the stored ones cannot be read (not JSON, or not an object: a row edited by hand):
  `corrupt.CorruptRow` naming the conversation (the engine checks `reads_stored`);
- values (sent, or else stored) that the schema rejects: refused (`deps_invalid`), naming the field;
- otherwise the values (`{}` when there are none) are the turn's, and its deps when the agent has
  no factory (`deps.py`). An agent given deps by the Python API (`Synapse.conversation(deps=...)`)
  runs with those: it needs no values.

Values are at most `MAX_JSON_CHARS` characters of JSON and hold no NUL character (PostgreSQL's
JSON cannot store one).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from .._storable import Unreadable, loads
from ..errors import DepsRejected
from .deps_schema import CHECK_SECONDS, TooCostly, iter_errors
from .deps_schema import problem as unsafe_part
from .target import TurnTarget

MAX_JSON_CHARS = 64 * 1024


def parse_values(text: str | None) -> dict[str, Any] | None:
    """The `deps` form field (JSON text) as an object; None when it is absent or empty."""
    if text is None or not text.strip():
        return None
    if len(text) > MAX_JSON_CHARS:
        raise DepsRejected(f'deps: {len(text)} characters is more than the {MAX_JSON_CHARS} accepted.')
    try:
        values = loads(text)
    except Unreadable as exc:
        where = exc.flaw.location('body.deps') if exc.flaw else 'body.deps'
        raise DepsRejected(f'deps: {exc.message}.', location=where) from None
    if not isinstance(values, dict):
        raise DepsRejected(f'deps: expected a JSON object of values, not a {type(values).__name__}.')
    return values


def reads_stored(target: TurnTarget, sent: dict[str, Any] | None) -> bool:
    """Whether a turn would run with the conversation's stored values (none sent, a schema, no factory)."""
    return sent is None and target.deps_schema is not None and target.deps_factory is None


def check_values(target: TurnTarget, sent: dict[str, Any] | None, stored: Any) -> dict[str, Any] | None:
    """The values the turn runs with, or `DepsRejected` (see the module docstring)."""
    schema = target.deps_schema
    if schema is None:
        if sent is not None:
            raise DepsRejected(
                f'deps: {target.name} declares no deps schema, so it takes no deps values.',
                code='deps_unexpected',
            )
        return None
    if sent is None and target.deps_factory is not None:
        return None
    values = sent if sent is not None else stored if isinstance(stored, dict) else None
    if target.setup_error is not None or schema_problem(schema) is not None:
        # The turn ends with the agent's own error card; an unusable schema checks nothing.
        return values
    if values is None:
        missing = _required(schema)
        if missing:
            raise DepsRejected(
                f'deps: {target.name} needs deps values ({", ".join(missing)}); send them as `deps`.',
                code='deps_required',
                location=f'body.deps.{missing[0]}',
            )
        values = {}
    _check_text(values)
    error = _first_error(schema, values)
    if error is not None:
        where, message = error
        note = ' (the values stored for this conversation: send new ones)' if sent is None else ''
        raise DepsRejected(
            f'deps.{where}: {message}{note}' if where else f'deps: {message}{note}',
            location=f'body.deps.{where}' if where else 'body.deps',
        )
    return values


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a JSON Schema a deps form can be checked against (None: it is)."""
    if not isinstance(schema, dict):
        return f'expected a JSON Schema object, not a {type(schema).__name__}'
    if not isinstance(schema.get('$schema', ''), str):
        # jsonschema picks the dialect by this URI and fails on anything but a string.
        return '$schema: must be the URI of a JSON Schema dialect (a string)'
    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError) as exc:
        return f'not JSON: {exc}'
    return _schema_problem(text)


@lru_cache(maxsize=64)
def _schema_problem(schema_json: str) -> str | None:
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    schema = json.loads(schema_json)
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return f'not a valid JSON Schema: {exc.message}'
    unsafe = unsafe_part(schema)
    if unsafe is not None:
        where, why = unsafe
        return f'{where}: {why}' if where else why
    return None


def _required(schema: dict[str, Any]) -> list[str]:
    required = schema.get('required')
    return [str(name) for name in required] if isinstance(required, list) else []


def _check_text(values: dict[str, Any]) -> None:
    try:
        text = json.dumps(values)
    except (TypeError, ValueError) as exc:
        raise DepsRejected(f'deps: the values are not JSON ({exc}).') from None
    if len(text) > MAX_JSON_CHARS:
        raise DepsRejected(
            f'deps: {len(text)} characters of JSON is more than the {MAX_JSON_CHARS} accepted.'
        )
    if '\\u0000' in text:
        raise DepsRejected('deps: NUL characters are not accepted.')


def _first_error(schema: dict[str, Any], values: dict[str, Any]) -> tuple[str, str] | None:
    """Where the values fail the schema (a dotted path, '' for the object) and why, or None."""
    from jsonschema.exceptions import best_match

    try:
        error = best_match(iter_errors(schema, values))
    except TooCostly:
        raise DepsRejected(
            f'deps: checking the values against the schema took longer than {CHECK_SECONDS:g} s; '
            'its patterns or its size are too costly for these values.',
            code='deps_too_costly',
        ) from None
    except RecursionError:
        raise DepsRejected('deps: the values nest too deeply for the schema to check them.') from None
    if error is None:
        return None
    path = [str(part) for part in error.absolute_path]
    if error.validator == 'required' and isinstance(error.instance, dict):
        missing = [name for name in error.validator_value if name not in error.instance]
        if missing:
            path.append(str(missing[0]))
            return '.'.join(path), 'Field required'
    return '.'.join(path), error.message
