"""`schema_problem` answers every stored deps schema with a reason or None, never an exception."""

from __future__ import annotations

from typing import Any

import pytest

from synapse_agents.targets.deps_values import schema_problem


@pytest.mark.parametrize('uri', [3, None, ['x'], {'uri': 'x'}])
def test_a_dialect_that_is_not_a_string_is_a_problem(uri: Any) -> None:
    """A row written by hand (the API refuses it) must not break building the agent."""
    problem = schema_problem({'$schema': uri, 'type': 'object'})
    assert problem is not None and '$schema' in problem


def test_a_valid_schema_has_no_problem() -> None:
    schema = {'$schema': 'https://json-schema.org/draft/2020-12/schema', 'type': 'object'}
    assert schema_problem(schema) is None
