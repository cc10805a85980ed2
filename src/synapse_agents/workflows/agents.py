"""A workflow step's agent, found, and a definition checked against the agents it names.

A step's `agent_name` is a code agent's slug (`synapse_agents.demo.agents.summariser`), a code
agent's pydantic-ai `name` when one discovered agent has it (`summariser`), or a configured agent's
key (sandboxes included, as a key always finds them). A definition is checked when it is saved and
before a run is accepted: an agent that cannot be found, and a path that cannot resolve against
its step's output schema (`definition.check_schemas`), is a `WorkflowInvalid` naming the step.
"""

from __future__ import annotations

from typing import Any

from ..chat.service import current_snapshot, lookup_target, target_for
from ..errors import UnknownAgent, WorkflowInvalid
from ..targets.target import TurnTarget
from .definition import Definition, check_schemas, parse


async def resolve(runtime: Any, name: str) -> TurnTarget:
    """The turn target of a step's agent (see the module); `UnknownAgent` when none is found."""
    try:
        return await lookup_target(runtime, name)
    except UnknownAgent:
        if runtime.catalog is None:
            raise
        named = [a for a in (await current_snapshot(runtime.catalog)).agents if a.agent.name == name]
        if len(named) != 1:
            raise
        return target_for(named[0])


def _schema(target: TurnTarget) -> dict[str, Any] | None:
    try:
        schema = target.agent.output_json_schema()  # type: ignore[union-attr]
    except Exception:  # an agent pydantic-ai cannot describe: its outputs are not checked
        return None
    return schema if isinstance(schema, dict) else None


async def checked(runtime: Any, raw: Any) -> Definition:
    """`raw` parsed and checked against its agents (see the module)."""
    definition = parse(raw)
    problems: list[tuple[str, str]] = []
    schemas: dict[str, dict[str, Any] | None] = {}
    for index, step in enumerate(definition.steps):
        try:
            schemas[step.name] = _schema(await resolve(runtime, step.agent))
        except Exception as exc:  # unknown, or a configured agent that cannot run
            said = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            problems.append((f'definition.steps.{index}.agent_name', f'step {step.name!r}: {said}'))
    problems += check_schemas(definition, schemas)
    if problems:
        raise WorkflowInvalid(problems)
    return definition
