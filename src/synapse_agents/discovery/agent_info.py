"""The shapes discovery hands out: agent cards, full agent info, and problems.

These are the payloads of `GET /api/agents` and `GET /api/agents/{slug}` (docs/api.md) and of
`synapse agents --json`; `model_dump(mode='json')` gives the wire form. Field names that are
Python keywords or clash with pydantic (`class`, `schema`) are declared with an alias and always
serialised by it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

AgentProblemCode = Literal[
    'missing_api_key',
    'provider_unavailable',
    'deps_factory_missing',
    'deps_factory_invalid',
    'tool_schema_error',
    'inspect_error',
    'unknown_tool',
    'config_error',
]
DiscoveryProblemKind = Literal[
    'import_error',
    'target_not_found',
    'factory_error',
    'spec_error',
    'inspect_error',
    'tool_error',
    'tool_conflict',
    'registry_error',
    'deps_target_unknown',
]


class _Model(BaseModel):
    model_config = ConfigDict(serialize_by_alias=True, validate_by_name=True, validate_by_alias=True)


class ModelRef(_Model):
    """The model an agent runs on by default."""

    provider: str | None = Field(description="Provider name, e.g. 'openai'; the demo model says 'synapse'.")
    name: str = Field(description="Model name, e.g. 'gpt-4o'.")
    id: str = Field(description="'provider:name', the id the model selector uses.")
    is_demo: bool = Field(description="True for Synapse's offline demo model.")
    fallbacks: list[str] = Field(
        default_factory=list, description='For a FallbackModel: the ids of the models tried after this one.'
    )


class AgentProblem(_Model):
    """Something that stops or changes how the agent runs in the playground."""

    code: AgentProblemCode
    message: str
    env_var: str | None = None


class DiscoveryProblem(_Model):
    """A target, module, spec file or agent that could not be loaded; every other agent still shows."""

    kind: DiscoveryProblemKind
    target: str
    file: str | None = None
    module: str | None = None
    exception: str
    message: str
    traceback: str = ''


class Counts(_Model):
    """How much each agent carries, for the card."""

    tools: int = 0
    native_tools: int = 0
    toolsets: int = 0
    mcp_toolsets: int = 0
    capabilities: int = 0
    subagents: int = 0


class _AgentFields(_Model):
    """Fields shared by the card and the full info."""

    slug: str = Field(description='Stable, URL-safe key: module path, then the attribute in kebab case.')
    name: str
    label: str | None = Field(
        None,
        description="What to call it where names collide: its name, or 'name · module' with the shortest "
        'part of the module path that tells agents of the same name apart.',
    )
    module: str = Field(description='Dotted module path; for a spec file, its path in the project.')
    attribute: str = Field(description='Module attribute holding the agent; for a spec file, its file name.')
    file: str | None = Field(None, description='Source file the agent is defined in.')
    description: str | None = None
    model: ModelRef | None = Field(
        description='None when the agent has no model of its own ("no model set").'
    )
    counts: Counts = Field(default_factory=Counts)
    stateless: bool = False
    structured_output: bool = False
    problems: list[AgentProblem] = Field(default_factory=list)
    configured: bool = Field(
        False, description='True for an agent configured in the registry (slug `config:<key>`).'
    )
    version: int | None = Field(None, description="A configured agent's version (None for a code agent).")


class AgentCard(_AgentFields):
    """What the landing page shows for one agent."""

    tools: list[str] = Field(default_factory=list, description='Names of the function tools.')


class RetriesInfo(_Model):
    tools: int | None = None
    output: int | None = None


class OutputToolInfo(_Model):
    """One output tool as the model is offered it (tool and auto output modes)."""

    name: str = Field(
        description="The tool name the model sees, e.g. 'final_result' or a `ToolOutput(name=...)`."
    )
    description: str | None = None
    parameters: dict[str, Any] = Field(description='The JSON schema of its arguments.')
    strict: bool | None = None
    function: str | None = Field(
        None, description='The output function its arguments are passed to (qualified name); None for a type.'
    )


class OutputValidatorInfo(_Model):
    """A function registered with `@agent.output_validator`."""

    name: str = Field(description='Qualified name of the function.')
    takes_ctx: bool = Field(description='Whether it takes the RunContext as its first argument.')
    location: str | None = None


class OutputInfo(_Model):
    type: str = Field(description="The output type as written, e.g. 'str' or 'TriageResult'.")
    mode: str | None = Field(None, description="How the model is asked for it: 'text', 'tool', 'native', ...")
    schema_: dict[str, Any] | None = Field(None, alias='schema')
    schema_error: str | None = None
    tools: list[OutputToolInfo] = Field(
        default_factory=list,
        description="The output tools offered in 'tool' (and 'auto') mode, as pydantic-ai built them.",
    )
    text_function: str | None = Field(
        None, description='For `TextOutput(fn)`: the function the text answer is passed to.'
    )
    validators: list[OutputValidatorInfo] = Field(default_factory=list)
    deferred: str | None = Field(
        None,
        description='When the output type also lists DeferredToolRequests (or DeferredToolResults): '
        'that a run may pause for tool approval instead. `type` and `schema` describe the rest.',
    )


class DepsInfo(_Model):
    type: str | None = Field(description='The deps_type, or None when the agent takes no dependencies.')
    factory: str | None = Field(None, description="The 'module:attribute' (or repr) of the deps factory.")
    required: bool = False
    source: Literal['metadata', 'hook', 'pyproject', 'default'] | None = Field(
        None,
        description="Where the factory is named: the agent's metadata, synapse_setup.py (`hook`) or "
        '[tool.synapse.deps] (`pyproject`); `default` when the deps type (a dataclass or pydantic '
        'model whose fields all have defaults) is built without arguments.',
    )
    lifetime: Literal['turn', 'server'] | None = Field(
        None,
        description="The agent's own `synapse.deps_lifetime` (None: the `deps_lifetime` setting).",
    )


class InstructionInfo(_Model):
    kind: Literal['static', 'dynamic']
    source: Literal['instructions', 'system_prompt', 'capability'] = 'instructions'
    text: str | None = Field(None, description='Static text in full (a template shows its source).')
    template: bool = False
    name: str | None = Field(None, description='Dynamic instructions: the function name.')
    location: str | None = Field(None, description="Dynamic instructions: 'path/to/file.py:31'.")


class ToolInfo(_Model):
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = Field(description='JSON schema; None when it could not be produced.')
    required: list[str] = Field(default_factory=list)
    schema_error: str | None = None
    toolset: str = Field(description="'agent' for the agent's own tools, else the toolset's label.")
    kind: Literal['function'] = 'function'
    takes_ctx: bool = False
    requires_approval: bool = False
    location: str | None = None
    max_retries: int | None = Field(
        None,
        description="The tool's own retry budget, else its toolset's; None: the agent's (`retries.tools`).",
    )
    prepare: str | None = Field(None, description='The name of its `prepare=` function, when it has one.')
    native_fallback: str | None = Field(
        None,
        description="A local fallback of this native tool (e.g. 'web_search'): a model that has the native "
        'tool is not offered this one.',
    )


class ToolsetInfo(_Model):
    kind: Literal['function', 'mcp', 'other']
    class_: str = Field(alias='class')
    label: str
    description: str | None = None
    tools: list[str] = Field(default_factory=list)
    index: int | None = Field(
        None, description='MCP toolsets: the `{index}` of `POST /api/agents/{slug}/mcp/{index}/connect`.'
    )
    capability: str | None = Field(
        None, description='The capability that contributes it (its class), if one does.'
    )
    native_fallback: str | None = Field(
        None,
        description='A local fallback of this native tool: not used with a model that has the native tool.',
    )


class NativeToolInfo(_Model):
    kind: str
    class_: str = Field(alias='class')
    options: dict[str, Any] = Field(default_factory=dict)


class SubagentInfo(_Model):
    name: str
    slug: str | None = Field(description="The sub-agent's own slug when discovery found it, else None.")
    via_tool: str


class CapabilityInfo(_Model):
    class_: str = Field(alias='class')
    module: str
    id: str | None = None


class AgentInfo(_AgentFields):
    """Everything an agent sends to its model, for the info panel: `GET /api/agents/{slug}`."""

    tools: list[ToolInfo] = Field(default_factory=list)
    model_settings: dict[str, Any] | None = None
    model_settings_dynamic: str | None = Field(
        None, description='Name of the function computing model settings per step, when there is one.'
    )
    retries: RetriesInfo = Field(default_factory=RetriesInfo)
    end_strategy: str | None = None
    tool_timeout: float | None = None
    output: OutputInfo
    deps: DepsInfo
    deps_schema: dict[str, Any] | None = Field(
        None,
        description="A configured agent's JSON Schema for its deps: the playground shows a form for "
        'it, and the chat request sends its values as `deps`.',
    )
    instructions: list[InstructionInfo] = Field(default_factory=list)
    toolsets: list[ToolsetInfo] = Field(default_factory=list)
    native_tools: list[NativeToolInfo] = Field(default_factory=list)
    subagents: list[SubagentInfo] = Field(default_factory=list)
    capabilities: list[CapabilityInfo] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None
    suggestions: list[str] = Field(
        default_factory=list,
        description="What to try, from `metadata={'synapse.suggestions': [...]}`: the empty playground "
        'offers each as a message to send.',
    )
    unavailable: list[str] = Field(
        default_factory=list,
        description="Facts the installed pydantic-ai does not let Synapse read, e.g. 'retries.tools' "
        '(see the degraded features of `synapse agents`).',
    )

    def card(self) -> AgentCard:
        """The landing-page card of this agent."""
        fields = {name: getattr(self, name) for name in _AgentFields.model_fields}
        return AgentCard(**fields, tools=[tool.name for tool in self.tools])


class DegradedFeatureInfo(_Model):
    """A discovery feature turned off because the installed pydantic-ai lacks a name it needs."""

    feature: str = Field(description="e.g. 'retry budgets'.")
    lost: str = Field(description='What is not shown or done without it.')
    missing: str = Field(description="The missing name, e.g. 'pydantic_ai.Agent._max_tool_retries'.")
    pydantic_ai_version: str


class AgentList(_Model):
    """`GET /api/agents` and `synapse agents --json`."""

    agents: list[AgentCard]
    problems: list[DiscoveryProblem]
    targets: list[str] = Field(description='The places discovery looked.')
    project_root: str
    degraded: list[DegradedFeatureInfo] = Field(
        default_factory=list,
        description='Empty unless the installed pydantic-ai lacks a name discovery uses.',
    )
