"""`Rules()`: the rules of the conversation's scope, at the top of every prompt of the run.

    from synapse_agents.capabilities import Rules

    agent = Agent(model, instructions='You answer questions about cases.', capabilities=[Rules()])

At the start of each run the capability reads, once, the enabled rules of the run's scope (its
tenant, subject and actor: `Scope.of(ctx)`, which a Synapse turn sets from its conversation) and
renders them as one block that goes before every other instruction of each model request: the
shared rules first under a heading that makes them mandatory, then the person's own under a heading
that makes them preferences, never interleaved (`render`). A run without a tenant gets no block.

Inside a Synapse turn (the playground, app conversations, tasks) it reads the turn's store; an app
running the agent itself builds it with `Rules.of(synapse)` or `Rules.at(database_url)`. Anywhere
else it raises `RulesUnavailable` rather than run without its rules.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import anyio.to_thread
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import InstructionPart
from pydantic_ai.models import ModelRequestContext

from ..errors import RulesUnavailable
from ..scope import Scope
from ..settings import Settings
from ..store import Store
from ..store.in_turn import in_turn
from . import book

PART_NAME = 'synapse_rules'
"""The name of the rules block among a request's instruction parts (what filled the prompt finds it by)."""
NOT_IN_A_TURN = (
    'Rules() reads its rules from a Synapse database: run the agent through Synapse (synapse serve, '
    'Synapse().conversation(...), a task), or build it with Rules.of(synapse) or Rules.at(database_url).'
)


def render(rules: book.ScopedRules, settings: Settings) -> str:
    """The prompt block of `rules`: shared ones first, then personal ones, each under its heading."""
    blocks = []
    if rules.shared:
        blocks.append('\n'.join([settings.rules_shared_heading, *(f'- {text}' for text in rules.shared)]))
    if rules.personal:
        blocks.append('\n'.join([settings.rules_personal_heading, *(f'- {text}' for text in rules.personal)]))
    return '\n\n'.join(blocks)


@dataclass(eq=False)
class RulesCapability(AbstractCapability[Any]):
    """See the module docstring. `store` and `settings`: where the rules are read and how they are
    headed; unset, the Synapse turn's."""

    store: Store | None = None
    settings: Settings | None = None

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        store, settings = self.store, self.settings
        turn = in_turn()
        if store is None:
            if turn is None:
                raise RulesUnavailable(NOT_IN_A_TURN)
            store = turn.store
        if settings is None:
            settings = turn.settings if turn is not None else Settings()
        found = await anyio.to_thread.run_sync(book.in_scope, store, Scope.of(ctx))
        return _RunRules(render(found, settings)) if found else _RunRules('')


@dataclass(eq=False)
class _RunRules(AbstractCapability[Any]):
    """One run's rules block, put before every other instruction of each request."""

    block: str

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        if not self.block:
            return request_context
        parameters = request_context.model_request_parameters
        parts = [
            InstructionPart(self.block, dynamic=True, name=PART_NAME),
            *(parameters.instruction_parts or []),
        ]
        return replace(request_context, model_request_parameters=replace(parameters, instruction_parts=parts))
