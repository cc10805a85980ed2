"""Helpers for the chat tests: a catalog of agents, scripted models, and a stream decoder.

`StaticCatalog` stands in for discovery's `Catalog` (same `scan().get(slug)` interface) with agents
the tests build, so the turn engine and routes can be tested with exact, fast models.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from synapse_agents.demo import (
    DemoModel,
    deps_agent,
    fallback_agent,
    flaky_agent,
    make_account_deps,
    orchestrator,
    research_agent,
    structured_agent,
    summariser,
    support_agent,
)

# In-process clients talk to a loopback host name, as a browser on this machine would.
LOCAL_URL = 'http://localhost'


@dataclass
class _ModelRef:
    id: str
    provider: str
    name: str
    is_demo: bool


@dataclass
class _Info:
    model: _ModelRef | None


@dataclass
class FoundAgent:
    """The fields of discovery's `DiscoveredAgent` the chat side reads."""

    agent: Any
    slug: str
    name: str
    stateless: bool = False
    deps_factory: Callable[[], Any] | None = None
    deps_required: bool = False
    missing_env: str | None = None
    module: str = 'tests'
    attribute: str = ''
    info: _Info = field(default_factory=lambda: _Info(None))


class StaticCatalog:
    """`scan()` returns itself; `get(slug)` finds an agent."""

    def __init__(self, agents: list[FoundAgent]) -> None:
        self.agents = {found.slug: found for found in agents}

    def scan(self) -> StaticCatalog:
        return self

    def get(self, slug: str) -> FoundAgent | None:
        return self.agents.get(slug)


def found(agent: Any, slug: str | None = None, **kwargs: Any) -> FoundAgent:
    """A catalog entry for `agent`; its own model is described like discovery does."""
    model = agent.model
    ref = None
    if isinstance(model, DemoModel):
        ref = _ModelRef('synapse:synapse-demo', 'synapse', 'synapse-demo', True)
    elif model is not None and not isinstance(model, str):
        ref = _ModelRef(f'{model.system}:{model.model_name}', model.system, model.model_name, False)
    elif isinstance(model, str):
        provider, _, name = model.partition(':')
        ref = _ModelRef(model, provider, name, False)
    name = agent.name or 'agent'
    return FoundAgent(agent=agent, slug=slug or f'tests.{name}', name=name, info=_Info(ref), **kwargs)


def demo_catalog() -> StaticCatalog:
    """Every demo agent, as `synapse serve --demo` would list them."""
    entries = [
        found(support_agent),
        found(summariser, stateless=True),
        found(structured_agent),
        found(flaky_agent),
        found(orchestrator),
        found(deps_agent, deps_factory=make_account_deps, deps_required=True),
        found(fallback_agent),
        found(research_agent),
    ]
    return StaticCatalog(entries)


# -- scripted models ---------------------------------------------------------------------


def tool_then_text_model(tool: str, args: dict[str, Any], text: str) -> FunctionModel:
    """Streams a call to `tool` first, then `text` (split in words) once the tool has answered."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        if not any(getattr(p, 'part_kind', '') == 'tool-call' for m in messages for p in m.parts):
            yield {0: DeltaToolCall(name=tool, json_args=json.dumps(args), tool_call_id=f'call_{tool}')}
            return
        for word in text.split(' '):
            yield word + ' '

    return FunctionModel(stream_function=stream, model_name='scripted')


def text_model(text: str) -> FunctionModel:
    """Streams `text` word by word."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for word in text.split(' '):
            yield word + ' '

    return FunctionModel(stream_function=stream, model_name='scripted')


def echo_history_model() -> FunctionModel:
    """Answers with how many user prompts it received and the binary sizes it saw."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        prompts = [p for m in messages for p in m.parts if getattr(p, 'part_kind', '') == 'user-prompt']
        sizes = [
            len(item.data)
            for p in prompts
            if isinstance(p.content, list)
            for item in p.content
            if hasattr(item, 'data')
        ]
        yield f'prompts={len(prompts)} files={sizes}'

    return FunctionModel(stream_function=stream, model_name='echo')


def simple_agent(model: Any, name: str = 'simple', **kwargs: Any) -> Agent[Any, Any]:
    return Agent(model, name=name, **kwargs)


# -- decoding ------------------------------------------------------------------------------

_ID_LIKE = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')


def decode(sse: str) -> list[dict[str, Any]]:
    """The chunks of a UI message stream (`[DONE]` becomes `{"type": "[DONE]"}`)."""
    chunks: list[dict[str, Any]] = []
    for event in sse.split('\n\n'):
        if not event.strip():
            continue
        assert event.startswith('data: '), event
        body = event[len('data: ') :]
        chunks.append({'type': '[DONE]'} if body == '[DONE]' else json.loads(body))
    return chunks


def types(chunks: list[dict[str, Any]]) -> list[str]:
    return [c['type'] for c in chunks]


def anonymise(value: Any) -> Any:
    """Replace ids, timings and tracebacks with placeholders, for snapshot comparison."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in ('duration_ms',) and item is not None:
                out[key] = '<ms>'
            elif key == 'traceback':
                out[key] = '<traceback>'
            elif key in ('id', 'toolCallId', 'messageId', 'tool_call_id') and isinstance(item, str):
                out[key] = '<id>'
            else:
                out[key] = anonymise(item)
        return out
    if isinstance(value, list):
        return [anonymise(item) for item in value]
    if isinstance(value, str) and _ID_LIKE.match(value):
        return '<uuid>'
    return value
