"""A deps schema that stays inside itself: what `deps_values.py` refuses in one, and its validator.

A `deps_schema` is written by whoever configures an agent and checked on every chat request, so it
must not make the server reach anywhere, loop or spin:

- **References** (`$ref`, `$dynamicRef`, `$recursiveRef`) resolve only inside the schema (its own
  pointers, anchors and embedded `$id`s) or to the JSON Schema meta-schemas jsonschema ships. The
  validator's `referencing.Registry` refuses every other URI, so nothing is ever fetched or read
  (`http://`, `file://`, a relative name), and `problem` names such a reference.
- **Cycles**: a reference that comes back to where it started without descending into the value
  (`{"$ref": "#"}`, `allOf` → `$ref` → `anyOf` → `$ref` back) would check one value forever; it is
  refused. A recursive schema that descends (a tree's `items: {"$ref": "#"}`) is fine.
- **Patterns** (`pattern` values and `patternProperties` keys) must be valid regular expressions
  without nested unbounded quantifiers, the shape of catastrophic backtracking (`(a+)+`,
  `(\\w+\\s?)*`): an unbounded repetition holding another is refused unless each turn of the outer
  one starts with a fixed character the inner one cannot match (`[a-z]+(-[a-z]+)*` is fine).
- **Time**: checking values runs under a deadline of `CHECK_SECONDS`; patterns are matched with the
  `regex` package and a timeout, every keyword looks at the clock first, and `uniqueItems` is linear.
  Past the deadline the check stops with `TooCostly`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from functools import lru_cache
from typing import Any
from urllib.parse import urldefrag, urljoin

from jsonschema import validators as jsonschema_validators
from jsonschema.exceptions import ValidationError
from jsonschema_specifications import REGISTRY as SPECIFICATIONS
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

from .deps_patterns import pattern_problem, search

CHECK_SECONDS = 1.0
"""How long checking one request's values against a schema may take."""

_REFS = ('$ref', '$dynamicRef', '$recursiveRef')
_IN_PLACE = ('not', 'if', 'then', 'else')
_IN_PLACE_LISTS = ('allOf', 'anyOf', 'oneOf')
_IN_PLACE_MAPS = ('dependentSchemas', 'dependencies')
_VALUES = frozenset({'enum', 'const', 'examples', 'default'})
"""Keywords whose values are data, not schemas."""

Path = tuple[str | int, ...]


class TooCostly(Exception):
    """Checking the values took longer than `CHECK_SECONDS`."""


def _refuse(uri: str) -> Any:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


_OFFLINE: Registry[Any] = Registry(retrieve=_refuse).with_resources(SPECIFICATIONS.items())  # type: ignore[call-arg]
"""The meta-schemas, and nothing that would be fetched."""


def registry_for(schema: Any) -> Registry[Any]:
    """The registry a schema is resolved in: itself (and what it embeds) and the meta-schemas."""
    resource = Resource.from_contents(schema, default_specification=DRAFT202012)
    registry = _OFFLINE.with_resource('', resource)
    if resource.id():
        registry = registry.with_resource(str(resource.id()), resource)
    crawled: Registry[Any] = registry.crawl()
    return crawled


def problem(schema: Any) -> tuple[str, str] | None:
    """The first thing `schema` may not hold: (its dotted path in the schema, why), or None."""
    if not isinstance(schema, dict):
        return None
    return _schema_problem(json.dumps(schema, sort_keys=True))


@lru_cache(maxsize=64)
def _schema_problem(schema_json: str) -> tuple[str, str] | None:
    schema = json.loads(schema_json)
    registry = registry_for(schema)
    nodes: dict[int, Path] = {}
    edges: dict[int, list[tuple[int, Path]]] = {}
    """Each schema's in-place edges: the schema applied to the same value, and the keyword's path."""
    for path, node, base in _schemas(schema):
        nodes[id(node)] = path
        targets = edges.setdefault(id(node), [])
        for name in _REFS:
            ref = node.get(name)
            if not isinstance(ref, str):
                continue
            try:
                resolved = registry.resolver(base_uri=base).lookup(ref)
            except Unresolvable:
                return _dotted(*path, name), (
                    f'{ref!r:.200} is outside the schema: only references inside it are resolved'
                )
            targets.append((id(resolved.contents), (*path, name)))
        targets.extend((id(node.get(name)), (*path, name)) for name in _IN_PLACE)
        for name in _IN_PLACE_LISTS:
            targets.extend((id(item), (*path, name, i)) for i, item in enumerate(_list(node.get(name))))
        for name in _IN_PLACE_MAPS:
            targets.extend((id(item), (*path, name, key)) for key, item in _map(node.get(name)).items())
        pattern = node.get('pattern')
        if isinstance(pattern, str) and (why := pattern_problem(pattern)) is not None:
            return _dotted(*path, 'pattern'), why
        for key in _map(node.get('patternProperties')):
            if (why := pattern_problem(key)) is not None:
                return _dotted(*path, 'patternProperties'), f'{key!r:.100}: {why}'
    cycle = _cycle(edges, nodes)
    if cycle is not None:
        return _dotted(*cycle), (
            'a reference cycle: the schema applies itself to the same value again, without end'
        )
    return None


def _schemas(schema: Any) -> Iterator[tuple[Path, dict[str, Any], str]]:
    """Every object in a schema with its path and base URI (following `$id`), values left out."""
    stack: list[tuple[Path, Any, str]] = [((), schema, '')]
    while stack:
        path, node, base = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get('$id'), str):
                base = urldefrag(urljoin(base, node['$id'])).url
            yield path, node, base
            stack.extend(((*path, key), child, base) for key, child in node.items() if key not in _VALUES)
        elif isinstance(node, list):
            stack.extend(((*path, index), child, base) for index, child in enumerate(node))


def _cycle(edges: dict[int, list[tuple[int, Path]]], nodes: dict[int, Path]) -> Path | None:
    """The path of the keyword that closes a cycle of in-place edges, or None."""
    state: dict[int, int] = {}  # 1: on the current path, 2: done
    for start in nodes:
        if state.get(start):
            continue
        stack: list[tuple[int, Iterator[tuple[int, Path]]]] = [(start, iter(edges.get(start, ())))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            step = next((c for c in children if c[0] in nodes and state.get(c[0]) != 2), None)
            if step is None:
                state[node] = 2
                stack.pop()
            elif state.get(step[0]) == 1:
                return step[1]
            else:
                state[step[0]] = 1
                stack.append((step[0], iter(edges.get(step[0], ()))))
    return None


def _dotted(*path: str | int) -> str:
    return '.'.join(str(part) for part in path)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# -- checking values within the deadline ----------------------------------------------------------

_deadline: ContextVar[float] = ContextVar('synapse_deps_deadline', default=float('inf'))


def iter_errors(schema: dict[str, Any], values: Any, seconds: float = CHECK_SECONDS) -> list[ValidationError]:
    """Every error of `values` against `schema` (an allowed one: `problem` is None); `TooCostly`
    when checking takes longer than `seconds`."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        return list(_validator(json.dumps(schema, sort_keys=True)).iter_errors(values))
    finally:
        _deadline.reset(token)


def _left() -> float:
    left = _deadline.get() - time.monotonic()
    if left <= 0:
        raise TooCostly
    return left


def _matches(pattern: str, text: str) -> bool:
    try:
        return search(pattern, text, _left())
    except TimeoutError:
        raise TooCostly from None


Keyword = Callable[[Any, Any, Any, dict[str, Any]], Iterable[ValidationError] | None]


def _timed(keyword: Keyword) -> Keyword:
    def check(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        _left()
        yield from keyword(validator, value, instance, schema) or ()

    return check


def _pattern(
    validator: Any, pattern: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, 'string') and not _matches(pattern, instance):
        yield ValidationError(f'{instance!r} does not match {pattern!r}')


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, 'object'):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _names_first(keyword: Keyword) -> Keyword:
    """A keyword that matches property names against `patternProperties` with `re` (which has no
    timeout): the names are matched within the deadline first, so a slow pattern stops there."""

    def check(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        if validator.is_type(instance, 'object'):
            for pattern in _map(schema.get('patternProperties')):
                for key in instance:
                    _matches(pattern, key)
        yield from keyword(validator, value, instance, schema) or ()

    return check


def _unique_items(
    validator: Any, unique: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not unique or not validator.is_type(instance, 'array'):
        return
    seen: set[str] = set()
    for item in instance:
        key = json.dumps(_canonical(item), sort_keys=True)
        if key in seen:
            yield ValidationError(f'{instance!r} has non-unique elements')
            return
        seen.add(key)


def _canonical(value: Any) -> Any:
    """`value` with equal JSON numbers alike (1 and 1.0) and booleans apart from numbers."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return ['n', int(value) if float(value).is_integer() else value]
    if isinstance(value, dict):
        return {key: _canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    return repr(value)


@lru_cache(maxsize=16)
def _timed_class(base: type) -> Any:
    keywords: dict[str, Keyword] = {name: _timed(keyword) for name, keyword in base.VALIDATORS.items()}  # type: ignore[attr-defined]
    for name in ('additionalProperties', 'unevaluatedProperties'):
        if name in keywords:
            keywords[name] = _names_first(keywords[name])
    keywords.update(
        {
            name: _timed(keyword)
            for name, keyword in (
                ('pattern', _pattern),
                ('patternProperties', _pattern_properties),
                ('uniqueItems', _unique_items),
            )
            if name in keywords
        }
    )
    return jsonschema_validators.extend(base, validators=keywords)


@lru_cache(maxsize=64)
def _validator(schema_json: str) -> Any:
    schema = json.loads(schema_json)
    cls = _timed_class(jsonschema_validators.validator_for(schema))
    return cls(schema, registry=registry_for(schema))
