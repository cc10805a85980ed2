"""Configured agents: the registry's agent rows built into pydantic-ai agents with `Agent.from_spec`.

An agent row becomes `Agent.from_spec(spec, name=..., description=..., instructions=[its
instructions, its tone's instructions], model=<its preset's model>, model_settings=<the preset's
temperature, max_tokens, top_p, timeout and provider options, then the spec's own
model_settings>, tools=..., toolsets=...)`: the row's `spec` holds the other `AgentSpec` fields
(`output_schema`, `retries`, `capabilities`, ...); `name`, `description`, `instructions` and
`model` are the row's own fields and are refused there. Tools come from the tool registry
(`tools.py`).

A `spec.deps_schema` (a JSON Schema) is the agent's deps form: it is on the agent's info, a chat
request sends values for it, and the checked values are the run's deps (`targets/deps_values.py`); a
schema that is not valid JSON Schema is a `config_error`.

What cannot be built is never an exception here: the agent is described with a problem
(`unknown_tool`, `config_error`, `missing_api_key`) and its turn target carries the error, so a
turn ends with that error card and the catalog still lists it. Built agents are cached per store by
key and version (and the rows of its preset, tone, model and provider, and the tool registry they
were built from). Reads block: the async helpers run them in a thread.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio.to_thread
from pydantic import ValidationError
from pydantic_ai import Agent
from pydantic_ai.agent.spec import AgentSpec
from pydantic_ai.models import Model
from sqlalchemy import select

from ..discovery.agent_info import AgentCard, AgentInfo, AgentProblem, ModelRef
from ..discovery.inspection import inspect_agent
from ..encryption import BadSecretKey, SecretBox
from ..errors import AgentAccessDenied
from ..store import Store
from ..targets.deps_values import schema_problem
from ..targets.model_choice import DEMO_MODEL_ID, MissingApiKey
from ..targets.target import AccessRule, TurnTarget
from ..tools import ToolRegistry, unknown_message
from .providers import ModelSource, build
from .tables import AgentConfig, Preset, Provider, RegistryModel, Tone

CONFIG_PREFIX = 'config:'
"""The slug prefix of a configured agent: `config:<key>`."""

MODULE = 'registry'
"""What a configured agent's card shows as its module."""

RESERVED_SPEC_KEYS = ('name', 'description', 'instructions', 'model')
"""`AgentSpec` fields the agent's own fields set (refused in its `spec`)."""

__all__ = ['AgentAccessDenied', 'ConfiguredAgent', 'ConfiguredAgentError', 'configured_agents']


class ConfiguredAgentError(ValueError):
    """Why a configured agent cannot run (a missing preset or tone, a bad spec, disabled)."""


def config_key(slug: str) -> str | None:
    """The registry key of a `config:<key>` slug (None for any other slug)."""
    return slug[len(CONFIG_PREFIX) :] or None if slug.startswith(CONFIG_PREFIX) else None


@dataclass
class ConfiguredAgent:
    """A configured agent as the catalog and the turn engine see it (a `DiscoveredAgent` look-alike)."""

    key: str
    version: int
    agent: Agent[Any, Any]
    info: AgentInfo
    access: AccessRule = field(default_factory=AccessRule)
    own_model_id: str | None = None
    setup_error: BaseException | None = None
    own_model_error: BaseException | None = None
    is_sandbox: bool = False
    enabled: bool = True
    stateless: bool = False
    deps_factory: None = None
    deps_required: bool = False
    deps_schema: dict[str, Any] | None = None
    """The spec's `deps_schema`: the values a turn needs (`targets/deps_values.py`)."""
    rag_sources: tuple[str, ...] = ()
    """The retrieval sources its turns may search (slugs)."""
    preset_key: str | None = None
    """The preset it runs with (kept on each ledger row, so preset limits apply)."""

    @property
    def slug(self) -> str:
        return CONFIG_PREFIX + self.key

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def missing_env(self) -> str | None:
        error = self.own_model_error
        return error.env_var if isinstance(error, MissingApiKey) else None

    @property
    def card(self) -> AgentCard:
        return self.info.card()

    def turn_target(self) -> TurnTarget:
        """What the turn engine runs."""
        return TurnTarget(
            agent=self.agent,
            slug=self.slug,
            name=self.name,
            missing_env=self.missing_env,
            own_model_id=self.own_model_id,
            agent_version=self.version,
            preset=self.preset_key,
            access=self.access,
            setup_error=self.setup_error,
            own_model_error=self.own_model_error,
            kind='config',
            deps_schema=self.deps_schema,
            rag_sources=self.rag_sources,
        )


@dataclass(frozen=True)
class Definition:
    """A configured agent's row with the rows it names (detached snapshots)."""

    config: AgentConfig
    preset: Preset | None
    tone: Tone | None
    model: ModelSource | None
    """What the preset's model id resolves to (None without a preset)."""


def read_definitions(store: Store, *, key: str | None = None) -> list[Definition]:
    """The agent `key` (sandboxes and disabled ones included), or every enabled non-sandbox agent,
    each with its preset, tone, registry model and provider: five queries in all (blocking)."""
    query = select(AgentConfig).order_by(AgentConfig.key)
    if key is not None:
        query = query.where(AgentConfig.key == key)
    else:
        query = query.where(AgentConfig.is_sandbox.is_(False), AgentConfig.enabled.is_(True))
    with store.read() as session:
        configs = list(session.scalars(query))
        if not configs:
            return []
        presets = _keyed(session, Preset, {c.preset_key for c in configs if c.preset_key})
        tones = _keyed(session, Tone, {c.tone_key for c in configs if c.tone_key})
        models = _keyed(session, RegistryModel, {p.model for p in presets.values()})
        providers = _keyed(session, Provider, {m.provider_key for m in models.values()})
        session.expunge_all()
    definitions: list[Definition] = []
    for config in configs:
        preset = presets.get(config.preset_key) if config.preset_key else None
        source: ModelSource | None = None
        if preset is not None:
            model = models.get(preset.model)
            source = ModelSource(preset.model, model, providers.get(model.provider_key) if model else None)
        definitions.append(Definition(config, preset, tones.get(config.tone_key or ''), source))
    return definitions


def _keyed(session: Any, kind: Any, keys: set[str]) -> dict[str, Any]:
    if not keys:
        return {}
    return {row.key: row for row in session.scalars(select(kind).where(kind.key.in_(sorted(keys))))}


def preset_settings(preset: Preset) -> dict[str, Any]:
    """A preset's settings as pydantic-ai `ModelSettings`: temperature, max_tokens, top_p and
    timeout when set, then its provider options."""
    settings: dict[str, Any] = {}
    for name, value in (
        ('temperature', preset.temperature),
        ('max_tokens', preset.max_tokens),
        ('top_p', preset.top_p),
        ('timeout', preset.timeout_s),
    ):
        if value is not None:
            settings[name] = value
    settings.update(preset.provider_options or {})
    return settings


def model_settings(definition: Definition) -> dict[str, Any]:
    """The preset's settings as pydantic-ai `ModelSettings`, then the spec's own `model_settings`."""
    settings = preset_settings(definition.preset) if definition.preset is not None else {}
    extra = (definition.config.spec or {}).get('model_settings')
    if isinstance(extra, dict):
        settings.update(extra)
    return settings


def build_agent(
    definition: Definition, box: SecretBox | BadSecretKey, tools: ToolRegistry, project_root: Path
) -> ConfiguredAgent:
    """Build one configured agent (no I/O); see the module docstring."""
    config = definition.config
    problems: list[AgentProblem] = []
    blocking: list[BaseException] = []

    def fail(code: Any, error: BaseException) -> None:
        problems.append(AgentProblem(code=code, message=str(error)))
        blocking.append(error)

    if not config.enabled:
        fail('config_error', ConfiguredAgentError(f'Agent {CONFIG_PREFIX}{config.key} is disabled.'))
    if config.preset_key and definition.preset is None:
        fail('config_error', ConfiguredAgentError(f'preset_key: no preset {config.preset_key!r}.'))
    if config.tone_key and definition.tone is None:
        fail('config_error', ConfiguredAgentError(f'tone_key: no tone {config.tone_key!r}.'))
    spec = _spec(config.spec, fail)
    deps_schema = spec.get('deps_schema')
    problem = schema_problem(deps_schema) if deps_schema is not None else None
    if problem is not None:
        fail('config_error', ConfiguredAgentError(f'spec.deps_schema: {problem}.'))
    sources = rag_source_slugs(config.rag_sources, fail)
    selection = tools.select(list(config.tools or []))
    if selection.unknown:
        fail('unknown_tool', ConfiguredAgentError(unknown_message(selection.unknown)))
    model, model_error, ref = _model(definition, box)
    if model_error is not None:
        env_var = model_error.env_var if isinstance(model_error, MissingApiKey) else None
        code = 'missing_api_key' if env_var else 'config_error'
        problems.append(AgentProblem(code=code, message=str(model_error), env_var=env_var))
    tone = definition.tone.instructions if definition.tone is not None else None
    instructions = [text for text in (config.instructions, tone) if text and text.strip()]
    options: dict[str, Any] = {
        'name': config.name or config.key,
        'description': config.description or None,
        'instructions': instructions or None,
        'model': model,
        'model_settings': model_settings(definition) or None,
        'tools': selection.tools,
        'toolsets': selection.toolsets,
        'defer_model_check': True,
    }
    try:
        agent: Agent[Any, Any] = Agent.from_spec(spec, **options)
    except Exception as exc:  # a capability the spec names that cannot be built, ...
        fail('config_error', ConfiguredAgentError(f'spec: {type(exc).__name__}: {exc}'))
        try:
            agent = Agent.from_spec({}, **options)
        except Exception:  # the tools clash with each other: described without them
            agent = Agent.from_spec({}, **{**options, 'tools': [], 'toolsets': []})
    inspection = inspect_agent(
        agent, name=options['name'], module=MODULE, attribute=config.key, file=None, project_root=project_root
    )
    problems.extend(
        AgentProblem(code='inspect_error', message=f'Could not read its {failure.section}: {failure.error}')
        for failure in inspection.failures
    )
    info = inspection.info.model_copy(
        update={
            'slug': CONFIG_PREFIX + config.key,
            'model': ref,
            'problems': problems,
            'configured': True,
            'version': config.version,
            'deps_schema': deps_schema if problem is None else None,
            'deps': inspection.info.deps.model_copy(update={'required': bool(_required(deps_schema))}),
        }
    )
    return ConfiguredAgent(
        key=config.key,
        version=config.version,
        agent=agent,
        info=info,
        access=AccessRule.of(config.access),
        own_model_id=definition.preset.model if definition.preset is not None else None,
        setup_error=blocking[0] if blocking else None,
        own_model_error=model_error,
        is_sandbox=config.is_sandbox,
        enabled=config.enabled,
        preset_key=config.preset_key,
        deps_schema=deps_schema if problem is None else None,
        rag_sources=sources,
    )


def rag_source_slugs(raw: Any, fail: Any) -> tuple[str, ...]:
    """The slugs of a row's `rag_sources`: each entry a slug, or an object naming one under `source`
    (or `slug`); anything else is a `config_error`."""
    slugs: list[str] = []
    for index, entry in enumerate(raw if isinstance(raw, list) else []):
        slug = entry.get('source', entry.get('slug')) if isinstance(entry, dict) else entry
        if isinstance(slug, str) and slug.strip():
            if slug.strip() not in slugs:
                slugs.append(slug.strip())
            continue
        fail(
            'config_error',
            ConfiguredAgentError(f'rag_sources[{index}]: expected a source slug or {{"source": slug}}.'),
        )
    return tuple(slugs)


def _required(schema: Any) -> list[Any]:
    required = schema.get('required') if isinstance(schema, dict) else None
    return required if isinstance(required, list) else []


def _spec(raw: Any, fail: Any) -> dict[str, Any]:
    """The row's `spec` as `AgentSpec` data, without the fields the row sets itself."""
    if not isinstance(raw, dict):
        fail('config_error', ConfiguredAgentError('spec: expected an object of AgentSpec fields.'))
        return {}
    reserved = [key for key in RESERVED_SPEC_KEYS if key in raw]
    if reserved:
        fail(
            'config_error',
            ConfiguredAgentError(
                f"spec: {', '.join(reserved)} cannot be set in the spec (the agent's own fields set them)."
            ),
        )
    data = {
        key: value for key, value in raw.items() if key not in RESERVED_SPEC_KEYS and key != 'model_settings'
    }
    try:
        AgentSpec.from_dict(data)
    except ValidationError as exc:
        fail('config_error', ConfiguredAgentError(f'spec: {exc}'))
        return {}
    return data


def _model(
    definition: Definition, box: SecretBox | BadSecretKey
) -> tuple[Model | None, BaseException | None, ModelRef | None]:
    """The preset's model, or why it cannot be built, and how the card names it."""
    source = definition.model
    if source is None:
        return None, None, None
    ref = ModelRef(
        provider=source.provider_name,
        name=source.model_name,
        id=source.model_id,
        is_demo=source.model_id == DEMO_MODEL_ID,
    )
    try:
        if isinstance(box, BadSecretKey):
            if source.provider is not None and source.provider.secret:
                raise box
            box = SecretBox(())
        return build(source, box), None, ref
    except Exception as exc:
        return None, exc, ref


def _stamp(definition: Definition, box: SecretBox | BadSecretKey, tools: ToolRegistry) -> tuple[Any, ...]:
    config = definition.config
    return (
        config.version,
        config.updated_at,
        definition.preset.updated_at if definition.preset is not None else None,
        definition.tone.updated_at if definition.tone is not None else None,
        definition.model.stamp if definition.model is not None else None,
        id(tools),
        box.keys if isinstance(box, SecretBox) else str(box),
    )


class ConfiguredAgents:
    """The configured agents of one store, built on demand and cached (blocking methods)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[str, tuple[tuple[Any, ...], ConfiguredAgent]] = {}
        self._lock = threading.Lock()
        self.builds = 0
        """How many agents were built (a cached one is not; for tests)."""

    def get(self, key: str, secret_key: Any, catalog: Any = None) -> ConfiguredAgent | None:
        """The configured agent `key` (sandboxes included), or None when there is none."""
        found = read_definitions(self.store, key=key)
        return self._built(found[0], secret_key, catalog) if found else None

    def listing(self, secret_key: Any, catalog: Any = None) -> list[ConfiguredAgent]:
        """The enabled, non-sandbox configured agents, ordered by key (the catalog's cards)."""
        return [self._built(d, secret_key, catalog) for d in read_definitions(self.store)]

    def _built(self, definition: Definition, secret_key: Any, catalog: Any) -> ConfiguredAgent:
        tools, root = _catalog_facts(catalog)
        box = _box(secret_key)
        stamp = _stamp(definition, box, tools)
        key = definition.config.key
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and cached[0] == stamp and not _key_appeared(cached[1]):
            return cached[1]
        built = build_agent(definition, box, tools, root)
        with self._lock:
            self.builds += 1
            self._cache[key] = (stamp, built)
        return built


_STORES: weakref.WeakKeyDictionary[Store, ConfiguredAgents] = weakref.WeakKeyDictionary()
_STORES_LOCK = threading.Lock()


def configured_agents(store: Store) -> ConfiguredAgents:
    """The configured agents of `store` (one cache per store object)."""
    with _STORES_LOCK:
        found = _STORES.get(store)
        if found is None:
            found = _STORES[store] = ConfiguredAgents(store)
        return found


async def find_configured(store: Store, secret_key: Any, catalog: Any, key: str) -> ConfiguredAgent | None:
    """`ConfiguredAgents.get` in a thread."""
    agents = configured_agents(store)
    return await anyio.to_thread.run_sync(lambda: agents.get(key, secret_key, catalog))


async def list_configured(store: Store, secret_key: Any, catalog: Any) -> Sequence[ConfiguredAgent]:
    """`ConfiguredAgents.listing` in a thread."""
    agents = configured_agents(store)
    return await anyio.to_thread.run_sync(lambda: agents.listing(secret_key, catalog))


def _catalog_facts(catalog: Any) -> tuple[ToolRegistry, Path]:
    """The tool registry and project root of the catalog's current scan (none: no tools)."""
    if catalog is None:
        return _NO_TOOLS, Path.cwd()
    snapshot = catalog.fresh() or catalog.scan()
    return snapshot.tools, snapshot.project_root


_NO_TOOLS = ToolRegistry()


def _box(secret_key: Any) -> SecretBox | BadSecretKey:
    try:
        return SecretBox.from_setting(secret_key)
    except BadSecretKey as exc:
        return exc


def _key_appeared(agent: ConfiguredAgent) -> bool:
    """Whether the variable the agent's provider lacked is set now (it is then built again)."""
    missing = agent.missing_env
    return missing is not None and bool(os.environ.get(missing))
