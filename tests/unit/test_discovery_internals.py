"""The private pydantic-ai names discovery reads still exist and still mean what discovery assumes.

When this fails after a pydantic-ai upgrade, discovery still works with the feature that needs the
name turned off (listed by `synapse agents`); fix `synapse_agents/discovery/_pydantic_ai_internals.py`
(the only module that reads them) to get it back.
"""

from __future__ import annotations

import dataclasses
import inspect

import pydantic_ai
from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.capabilities import WebSearch

from synapse_agents.discovery import _pydantic_ai_internals as internals
from synapse_agents.discovery import degraded_features
from synapse_agents.discovery.inspection import AGENT_TOOLSET_ID


def make_agent() -> Agent[None, str]:
    agent: Agent[None, str] = Agent(
        'test',
        instructions='Static.',
        system_prompt='System.',
        retries={'tools': 4, 'output': 5},
        tool_timeout=7,
        metadata={'synapse.stateless': True},
        capabilities=[WebSearch(local=False)],
    )

    @agent.instructions
    def dynamic(ctx: RunContext[None]) -> str:
        return 'Dynamic.'

    @agent.system_prompt
    def prompt() -> str:
        return 'Prompt.'

    @agent.tool_plain
    def tool(x: int) -> int:
        return x

    return agent


def test_every_private_agent_attribute_exists() -> None:
    agent = make_agent()
    missing = [name for name in internals.AGENT_ATTRIBUTES if not hasattr(agent, name)]
    assert missing == [], f'pydantic-ai {pydantic_ai.__version__} renamed or removed: {missing}'


def test_each_reader_returns_what_discovery_expects() -> None:
    agent = make_agent()
    assert internals.retries(agent) == (4, 5)
    assert internals.tool_timeout(agent) == 7.0
    assert internals.metadata(agent) == {'synapse.stateless': True}
    recipes = internals.instruction_recipes(agent)
    assert recipes[0] == 'Static.' and callable(recipes[1]) and recipes[1].__name__ == 'dynamic'
    assert internals.system_prompts(agent) == ('System.',)
    assert [f.__name__ for f in internals.system_prompt_functions(agent)] == ['prompt']
    assert isinstance(internals.capability_instruction_recipes(agent), list)
    assert internals.output_mode(agent) == 'text'
    assert internals.output_mode(Agent('test', output_type=int)) == 'auto'
    assert internals.output_tool_definitions(agent) == ([], {})
    definitions, processors = internals.output_tool_definitions(Agent('test', output_type=[int, bool]))
    assert [d.name for d in definitions] == ['final_result_int', 'final_result_bool']
    assert all(d.kind == 'output' for d in definitions) and set(processors) == {d.name for d in definitions}
    assert processors['final_result_int'].object_def.name == 'int'

    def positive(value: str) -> str:
        return value

    agent.output_validator(positive)
    assert internals.output_validator_functions(agent) == [positive]


def test_every_guarded_name_is_there_so_no_feature_is_degraded() -> None:
    internals.reset()
    assert degraded_features() == [], f'pydantic-ai {pydantic_ai.__version__} lacks names discovery uses'
    assert all(internals.available(private) for private in internals.NAMES)
    assert internals.unavailable_facts() == []
    guarded = {private.name for private in internals.NAMES}
    assert {*internals.AGENT_ATTRIBUTES, *internals.FUNCTION_SCHEMA_ATTRIBUTES} <= guarded


def test_auto_injected_capabilities_are_known() -> None:
    automatic = internals.auto_capability_types()
    assert automatic and all(isinstance(cls, type) for cls in automatic)
    leaves: list[object] = []
    Agent('test').root_capability.apply(leaves.append)
    assert leaves and all(isinstance(leaf, automatic) for leaf in leaves), (
        'a bare agent has only automatic ones'
    )


def test_the_tool_schema_builder_is_where_discovery_wraps_it() -> None:
    owner = internals.function_schema_owner()
    for name in internals.FUNCTION_SCHEMA_ATTRIBUTES:
        assert hasattr(owner, name), f'pydantic_ai._function_schema.{name} is gone'
    schema_class = internals.function_schema_class()
    assert schema_class is not None and dataclasses.is_dataclass(schema_class)
    fields = {field.name for field in dataclasses.fields(schema_class)}
    assert {'function', 'name', 'description', 'validator', 'json_schema', 'takes_ctx', 'is_async'} <= fields
    # `Tool.__init__` must look the builder up on the module at call time, so that wrapping works.
    assert '_function_schema.function_schema(' in inspect.getsource(Tool.__init__)


def test_public_facts_discovery_relies_on() -> None:
    agent = make_agent()
    assert agent.toolsets[0].id == AGENT_TOOLSET_ID
    # `Agent.__init__` must build a named model through `pydantic_ai.models.infer_model` (see `keys`).
    assert 'models.infer_model(model)' in inspect.getsource(Agent.__init__)
