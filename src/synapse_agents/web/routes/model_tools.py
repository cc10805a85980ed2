"""`GET /api/agents/{slug}/model-tools`: the tools an agent's model receives, resolved by pydantic-ai.

Unlike `GET /api/agents/{slug}` (read without running anything), this runs the agent up to its
first model request with a model that only keeps the tool definitions (`discovery/model_tools.py`):
prefixes, renames, filters, `prepare` functions, prepare capabilities and dynamic toolsets are
applied as in a real first request. The deps come from the agent's deps factory, as in a chat turn
(`chat/deps.py`: a `turn`-lifetime context manager is left once the tools are resolved; a configured
agent with a deps schema gets `{}`). MCP servers are not connected to: their toolsets are named
in `mcp_skipped`.

Answers: 404 for an unknown slug; 409 when the agent cannot run here (it needs deps and has no
factory, a configured agent that cannot be built, the registry cannot be read); 504 when the
resolution takes longer than `RESOLVE_SECONDS`; 422 when it fails (a `prepare` function that
raises, a deps factory that fails), with the exception's class in `exception`.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Annotated

import anyio
from fastapi import APIRouter, Depends
from pydantic import Field

from ...chat.deps import close_quietly, lifetime_of, open_deps
from ...chat.service import find_agent
from ...deps_setup import missing_factory_hint
from ...discovery.model_tools import ModelToolsView, model_tools
from ...errors import AgentLookupError
from ...targets.target import TurnTarget
from ..context import SynapseContext, get_context
from ..errors import ApiError, error_responses

router = APIRouter(tags=['agents'])

Context = Annotated[SynapseContext, Depends(get_context)]

RESOLVE_SECONDS = 10.0
"""How long the deps factory and the resolving run may take together."""


class ModelToolsAnswer(ModelToolsView):
    """The agent's tools as its model receives them on the first request of a new conversation."""

    slug: str
    name: str
    resolve_ms: int = Field(description='How long the resolution took, deps factory included.')


@router.get('/api/agents/{slug}/model-tools', responses=error_responses(404, 409, 422, 504))
async def get_model_tools(slug: str, context: Context) -> ModelToolsAnswer:
    """Function and output tools exactly as pydantic-ai hands them to the model, with their origin."""
    target = await _target(context, slug)
    agent = target.agent
    assert agent is not None
    started = anyio.current_time()
    with anyio.move_on_after(RESOLVE_SECONDS) as scope:
        stack = AsyncExitStack()
        try:
            cache = context.chat_service().engine.server_deps
            lifetime = lifetime_of(target, context.settings)
            deps = await open_deps(stack, target, None, lifetime=lifetime, cache=cache)
            view = await model_tools(agent, deps)
        except Exception as exc:
            raise ApiError(
                422,
                f'The tools of {target.name} could not be resolved: {type(exc).__name__}: {exc}'.strip(),
                code='resolve_failed',
                exception=type(exc).__name__,
            ) from exc
        finally:
            await close_quietly(stack)
    if scope.cancelled_caught:
        raise ApiError(
            504,
            f'Resolving the tools of {target.name} took longer than {RESOLVE_SECONDS:g} seconds.',
            code='timeout',
        )
    elapsed = round((anyio.current_time() - started) * 1000)
    facts = view.model_dump(by_alias=False)
    return ModelToolsAnswer(**facts, slug=slug, name=target.name, resolve_ms=elapsed)


async def _target(context: SynapseContext, slug: str) -> TurnTarget:
    """The agent to resolve, or the 404/409 that says why there is none."""
    try:
        found = await find_agent(context, slug)
    except AgentLookupError as exc:
        raise ApiError(409, str(exc)) from exc
    if found is None:
        raise ApiError(404, f'No agent with slug {slug!r}.')
    target = TurnTarget.from_discovered(found)
    if target.agent is None:
        raise ApiError(404, f'No agent with slug {slug!r}.')
    if target.setup_error is not None:
        raise ApiError(409, f'{target.name} cannot run: {target.setup_error}', code='agent_unavailable')
    if target.deps_factory is None and target.deps_required:
        raise ApiError(409, missing_factory_hint(target.name, key=target.deps_key), code='deps_unavailable')
    return target
