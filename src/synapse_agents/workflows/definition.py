"""The workflow definition format (version 1), checked, and its JSONPath expressions.

    {"version": 1,
     "steps": [{"name": "triage", "agent_name": "structured_agent",
                "input_mapping": {"message": "$.input.message"}, "output_key": "triage"}],
     "outputs": {"category": "$.steps.triage.output.category"}}

Steps run in order. A value of `input_mapping` (and of `outputs`) that is a string starting with `$`
is a JSONPath expression (jsonpath-ng) read from the run's document `{"input": <the run's input>,
"steps": {NAME: {"output": <that step's output>}}}`; any other value is taken as it is. A path
either names one place (fields and indexes only: the value there, and an error when there is none)
or uses a wildcard, slice or filter (always a list of what matched, possibly empty).

`parse` checks the shape and every path's syntax and reach without knowing the agents: a path
starts at `$.input` or at `$.steps.NAME.output` of an earlier step (any step, in `outputs`).
`check_schemas` then walks each step path through that step's output schema.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from jsonpath_ng import JSONPath
from jsonpath_ng.jsonpath import Child, Fields, Index, Root
from jsonpath_ng.parser import parse as parse_path
from pydantic_core import to_jsonable_python

from ..errors import WorkflowInvalid

FORMAT_VERSION = 1
MAX_STEPS = 50
STEP_NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_]{0,99}$')
TEXT_SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {'answer': {'type': 'string'}},
    'required': ['answer'],
}
"""A text agent's step output: `{"answer": text}`."""

Problems = list[tuple[str, str]]


@dataclass(frozen=True)
class Step:
    """One step: its name, the agent it runs, how its message is made and where its output goes."""

    name: str
    agent: str
    input_mapping: dict[str, Any]
    output_key: str


@dataclass(frozen=True)
class Definition:
    """A checked definition."""

    steps: tuple[Step, ...]
    outputs: dict[str, Any]
    raw: dict[str, Any]


class PathMissing(LookupError):
    """A single-place path that names nothing in the run's document."""


@functools.lru_cache(maxsize=1024)
def compiled(text: str) -> JSONPath:
    """The parsed path (`ValueError` when it is not JSONPath)."""
    try:
        return parse_path(text)
    except Exception as exc:  # jsonpath-ng raises its own lexer/parser errors
        raise ValueError(str(exc).splitlines()[0] if str(exc) else 'not a JSONPath expression') from None


def is_path(value: Any) -> bool:
    return isinstance(value, str) and value.startswith('$')


def segments(path: JSONPath) -> tuple[list[str | int], bool]:
    """The path's fields and indexes from the root, and whether it names one place only."""
    parts: list[str | int] = []
    single = True

    def walk(node: Any) -> None:
        nonlocal single
        if isinstance(node, Root):
            return
        if isinstance(node, Child):
            walk(node.left)
            walk(node.right)
        elif isinstance(node, Fields) and len(node.fields) == 1 and node.fields[0] != '*':
            parts.append(node.fields[0])
        elif isinstance(node, Index) and len(node.indices) == 1:
            parts.append(node.indices[0])
        else:
            single = False
            parts.append('*')

    walk(path)
    return parts, single


def _reach(text: str, where: str, earlier: list[str], problems: Problems) -> None:
    try:
        parts, _ = segments(compiled(text))
    except ValueError as exc:
        problems.append((where, f'{text!r} is not a JSONPath expression: {exc}'))
        return
    if parts[:1] == ['input']:
        return
    if len(parts) >= 3 and parts[0] == 'steps' and parts[2] == 'output':
        if parts[1] not in earlier:
            problems.append(
                (where, f'{text!r} points at step {parts[1]!r}, which is not a step before this one')
            )
        return
    problems.append((where, f'{text!r} points at nothing: a path starts at $.input or $.steps.NAME.output'))


def _paths(value: Any, where: str) -> list[tuple[str, str]]:
    """Every path in a mapping value (nested objects and lists too), with its location."""
    if is_path(value):
        return [(where, value)]
    if isinstance(value, dict):
        return [found for key, item in value.items() for found in _paths(item, f'{where}.{key}')]
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in _paths(item, f'{where}.{index}')]
    return []


def _step(raw: Any, index: int, names: list[str], keys: set[str], problems: Problems) -> Step | None:
    where = f'definition.steps.{index}'
    if not isinstance(raw, dict):
        problems.append((where, 'a step is an object with name, agent_name, input_mapping and output_key'))
        return None
    unknown = sorted(set(raw) - {'name', 'agent_name', 'input_mapping', 'output_key'})
    if unknown:
        problems.append((f'{where}.{unknown[0]}', 'not a step field'))
    name = raw.get('name')
    if not isinstance(name, str) or not STEP_NAME.match(name):
        problems.append((f'{where}.name', 'letters, digits and "_", not starting with a digit (at most 100)'))
        return None
    if name in names:
        problems.append((f'{where}.name', f'step {name!r} is named twice'))
    agent = raw.get('agent_name')
    if not isinstance(agent, str) or not agent.strip() or len(agent) > 255 or '\x00' in agent:
        problems.append((f'{where}.agent_name', 'the slug or name of the agent this step runs'))
        agent = ''
    mapping = raw.get('input_mapping', {})
    if not isinstance(mapping, dict):
        problems.append((f'{where}.input_mapping', 'an object of names to values or JSONPath expressions'))
        mapping = {}
    for location, text in _paths(mapping, f'{where}.input_mapping'):
        _reach(text, location, names, problems)
    output_key = raw.get('output_key', name)
    if not isinstance(output_key, str) or not output_key.strip() or len(output_key) > 100:
        problems.append((f'{where}.output_key', 'a key of 1 to 100 characters'))
        output_key = name
    elif output_key in keys:
        problems.append((f'{where}.output_key', f'{output_key!r} is the output key of an earlier step'))
    keys.add(output_key)
    names.append(name)
    return Step(name=name, agent=agent, input_mapping=mapping, output_key=output_key)


def parse(raw: Any) -> Definition:
    """The definition checked (shape, names, path syntax and reach); `WorkflowInvalid` lists every
    problem by its location."""
    problems: Problems = []
    if not isinstance(raw, dict):
        raise WorkflowInvalid([('definition', 'an object with version, steps and outputs')])
    unknown = sorted(set(raw) - {'version', 'steps', 'outputs'})
    if unknown:
        problems.append((f'definition.{unknown[0]}', 'not a definition field'))
    if raw.get('version', FORMAT_VERSION) != FORMAT_VERSION:
        problems.append(('definition.version', f'the format version is {FORMAT_VERSION}'))
    raw_steps = raw.get('steps')
    if not isinstance(raw_steps, list) or not 1 <= len(raw_steps) <= MAX_STEPS:
        raise WorkflowInvalid([*problems, ('definition.steps', f'a list of 1 to {MAX_STEPS} steps')])
    names: list[str] = []
    keys: set[str] = set()
    steps = [_step(item, index, names, keys, problems) for index, item in enumerate(raw_steps)]
    outputs = raw.get('outputs', {})
    if not isinstance(outputs, dict):
        problems.append(('definition.outputs', 'an object of output names to JSONPath expressions'))
        outputs = {}
    for location, text in _paths(outputs, 'definition.outputs'):
        _reach(text, location, names, problems)
    if problems:
        raise WorkflowInvalid(problems)
    return Definition(steps=tuple(s for s in steps if s is not None), outputs=outputs, raw=raw)


def _deref(schema: Any, root: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get('$ref'), str):
        name = schema['$ref'].rsplit('/', 1)[-1]
        schema = root.get('$defs', {}).get(name, {})
    return schema


def _walk(schema: Any, parts: list[str | int], root: dict[str, Any]) -> str | None:
    """None when `parts` can exist in a value of `schema`, else what is wrong."""
    schema = _deref(schema, root)
    if not parts or not isinstance(schema, dict) or parts[0] == '*':
        return None
    branches = schema.get('anyOf') or schema.get('oneOf')
    if isinstance(branches, list):
        said = [_walk(branch, parts, root) for branch in branches]
        return None if any(s is None for s in said) else said[0]
    head, rest = parts[0], parts[1:]
    kind = schema.get('type')
    if isinstance(head, int):
        if kind == 'array':
            return _walk(schema.get('items', {}), rest, root)
        return None if kind is None else f'[{head}] indexes a {kind}, not a list'
    properties = schema.get('properties')
    if isinstance(properties, dict):
        if head in properties:
            return _walk(properties[head], rest, root)
        extra = schema.get('additionalProperties')
        if isinstance(extra, dict):
            return _walk(extra, rest, root)
        return f'{head!r} is not a field of the output (its fields: {", ".join(sorted(properties))})'
    if kind in ('string', 'integer', 'number', 'boolean', 'null'):
        return f'{head!r} is read from a {kind}'
    return None


def output_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a step's output looks like, given its agent's output JSON schema (None: unknown)."""
    if schema == {'type': 'string'}:
        return TEXT_SCHEMA
    return schema


def check_schemas(definition: Definition, schemas: dict[str, dict[str, Any] | None]) -> Problems:
    """Each step path walked through its step's output schema (`schemas`: by step name, None when
    unknown); the paths that cannot resolve, by location."""
    problems: Problems = []
    places = [
        *(
            found
            for index, step in enumerate(definition.steps)
            for found in _paths(step.input_mapping, f'definition.steps.{index}.input_mapping')
        ),
        *_paths(definition.outputs, 'definition.outputs'),
    ]
    for location, text in places:
        parts, _ = segments(compiled(text))
        if parts[0] != 'steps':
            continue
        schema = output_schema(schemas.get(str(parts[1])))
        if schema is None:
            continue
        wrong = _walk(schema, parts[3:], schema)
        if wrong is not None:
            problems.append((location, f'{text!r} cannot resolve against step {parts[1]!r}: {wrong}'))
    return problems


def resolve(value: Any, document: dict[str, Any], where: str) -> Any:
    """`value` with each path in it replaced by what it finds in `document` (`PathMissing` naming
    `where` and the path when a single-place path finds nothing)."""
    if is_path(value):
        path = compiled(value)
        found = [match.value for match in path.find(document)]
        _, single = segments(path)
        if not single:
            return found
        if not found:
            raise PathMissing(f'{where}: {value!r} matched nothing')
        return found[0]
    if isinstance(value, dict):
        return {key: resolve(item, document, f'{where}.{key}') for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, document, f'{where}.{index}') for index, item in enumerate(value)]
    return value


def message_of(step: Step, document: dict[str, Any]) -> str:
    """The user message a step sends: its resolved `input_mapping` when it is `{"message": text}`,
    else that mapping as JSON (keys sorted: PostgreSQL's JSONB keeps no key order); with an empty
    mapping, the run's input (its text, or its `message` when that is its only field, else it as
    JSON)."""
    value = resolve(step.input_mapping, document, f'steps.{step.name}.input_mapping')
    if not step.input_mapping:
        value = document.get('input')
        if isinstance(value, str):
            return value
    if isinstance(value, dict) and set(value) == {'message'} and isinstance(value['message'], str):
        return str(value['message'])
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def output_of(output: Any) -> Any:
    """A step's output in the run's document: a text answer as `{"answer": text}`, a structured one
    as its JSON."""
    if isinstance(output, str):
        return {'answer': output}
    try:
        return to_jsonable_python(output)
    except Exception:  # an output pydantic cannot serialise: kept as its text
        return {'answer': repr(output)}
