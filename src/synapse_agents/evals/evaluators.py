"""Synapse's own evaluators, named in a dataset the way pydantic-evals names its own.

`{"ToolCalled": "lookup_order"}`, `{"ToolCalled": {"tool": "lookup_order", "arguments": {"id": 7}}}`,
`{"MaxCost": 0.01}` and `{"MatchesSchema": {"schema": {...}}}` sit beside pydantic-evals'
`Equals`, `EqualsExpected`, `Contains`, `IsInstance`, `MaxDuration` and `HasMatchingSpan`.
`LLMJudge` is written as pydantic-evals writes it but run by Synapse's own class of that name:
the one pydantic-evals 0.0.51 ships builds its agent with an argument pydantic-ai no longer takes.
What a run saw that the output alone does not say (the tool calls made, what the case cost) reaches
them as the case's attributes: `tool_calls` (a list of `{"name",
"arguments"}`) and `cost` (a decimal string, or None when the model has no price).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import anyio.to_thread
import jsonschema
from pydantic import BaseModel, Field
from pydantic_ai import Agent
from pydantic_ai.models import Model
from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext

TOOL_CALLS = 'tool_calls'
"""The case attribute holding the run's tool calls, in the order they were made."""
COST = 'cost'
"""The case attribute holding what the case's model calls cost (a decimal string, or None)."""


def _subset(expected: Any, actual: Any) -> bool:
    """Whether `actual` holds everything `expected` names (objects by key, at any depth)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and _subset(value, actual[key]) for key, value in expected.items()
        )
    return bool(expected == actual)


@dataclass
class ToolCalled(Evaluator[object, object, object]):
    """The run called tool `tool`; with `arguments`, at least once with arguments holding those."""

    tool: str
    arguments: dict[str, Any] | None = None

    def evaluate(self, ctx: EvaluatorContext[object, object, object]) -> EvaluationReason:
        calls = [c for c in ctx.attributes.get(TOOL_CALLS) or [] if c.get('name') == self.tool]
        if not calls:
            made = sorted({str(c.get('name')) for c in ctx.attributes.get(TOOL_CALLS) or []})
            return EvaluationReason(
                False, f'{self.tool} was not called (called: {", ".join(made) or "no tool"}).'
            )
        if self.arguments is None:
            return EvaluationReason(True, f'{self.tool} was called {len(calls)} time(s).')
        if any(_subset(self.arguments, c.get('arguments')) for c in calls):
            return EvaluationReason(True, f'{self.tool} was called with the expected arguments.')
        return EvaluationReason(
            False, f'{self.tool} was called, never with arguments holding {self.arguments}.'
        )


@dataclass
class MaxCost(Evaluator[object, object, object]):
    """The case's model calls cost at most `amount` (in the prices' currency, USD by default)."""

    amount: float | str

    def evaluate(self, ctx: EvaluatorContext[object, object, object]) -> EvaluationReason:
        cost = ctx.attributes.get(COST)
        if cost is None:
            return EvaluationReason(False, 'The cost is not known (the model has no price).')
        limit = Decimal(str(self.amount))
        spent = Decimal(str(cost))
        return EvaluationReason(spent <= limit, f'Cost {spent} against at most {limit}.')


@dataclass
class MatchesSchema(Evaluator[object, object, object]):
    """The output, as JSON, matches the JSON schema `schema`."""

    schema: dict[str, Any]

    def evaluate(self, ctx: EvaluatorContext[object, object, object]) -> EvaluationReason:
        output = ctx.output
        if hasattr(output, 'model_dump'):
            output = output.model_dump(mode='json')
        errors = sorted(
            jsonschema.Draft202012Validator(self.schema).iter_errors(output), key=lambda e: e.path
        )
        if not errors:
            return EvaluationReason(True, 'The output matches the schema.')
        where = '.'.join(str(p) for p in errors[0].absolute_path) or 'the output'
        return EvaluationReason(False, f'{where}: {errors[0].message}')


JUDGE_INSTRUCTIONS = (
    'You grade the output of an AI agent against a rubric. Say whether the output meets the rubric '
    '(passed), with a short reason, and a score from 0 (not at all) to 1 (fully).'
)


class Grading(BaseModel):
    """A judge's verdict."""

    reason: str
    passed: bool
    score: float = Field(ge=0, le=1)


JudgeModels = Callable[[str], Model | str]
"""Turns a judge's model id into the model it runs on (blocking: it may read the registry)."""

_judge_models: ContextVar[JudgeModels | None] = ContextVar('synapse_judge_models', default=None)


@contextmanager
def judging_with(resolve: JudgeModels) -> Iterator[None]:
    """Inside, an `LLMJudge` names its model as Synapse's model selector does (`demo`, a registry
    model's key, any pydantic-ai model string): `resolve` builds it. Outside, the id goes to
    pydantic-ai as it is."""
    token = _judge_models.set(resolve)
    try:
        yield
    finally:
        _judge_models.reset(token)


@dataclass
class LLMJudge(Evaluator[object, object, object]):
    """A judge model says whether the output meets `rubric` (with the input too when
    `include_input`). Named and written as pydantic-evals' own `LLMJudge`, run on pydantic-ai's
    current `Agent`; `model` is required (never a default provider). Inside an eval run its model
    is any id the model selector takes (`judging_with`) and its model calls are ledger rows
    (`evals/execute.py`)."""

    rubric: str
    model: str
    include_input: bool = False

    async def evaluate(self, ctx: EvaluatorContext[object, object, object]) -> EvaluationReason:
        resolve = _judge_models.get()
        model = self.model if resolve is None else await anyio.to_thread.run_sync(resolve, self.model)
        judge = Agent(model, output_type=Grading, instructions=JUDGE_INSTRUCTIONS, name='eval-judge')
        parts = [f'<Rubric>\n{self.rubric}\n</Rubric>', f'<Output>\n{ctx.output!r}\n</Output>']
        if self.include_input:
            parts.insert(1, f'<Input>\n{ctx.inputs!r}\n</Input>')
        grading = (await judge.run('\n'.join(parts))).output
        return EvaluationReason(grading.passed, grading.reason)


SYNAPSE_EVALUATORS: tuple[type[Evaluator[object, object, object]], ...] = (
    ToolCalled,
    MaxCost,
    MatchesSchema,
    LLMJudge,
)
"""Registered with pydantic-evals' own whenever a dataset is read."""


def check_arguments(evaluator: Evaluator[object, object, object]) -> str | None:
    """What is wrong with an evaluator's arguments that its class cannot say, or None."""
    if isinstance(evaluator, MaxCost):
        try:
            amount = Decimal(str(evaluator.amount))
        except InvalidOperation:
            return f'MaxCost: {evaluator.amount!r} is not an amount'
        if not amount.is_finite() or amount < 0:
            return 'MaxCost: the amount must be zero or more'
    if isinstance(evaluator, MatchesSchema):
        try:
            jsonschema.Draft202012Validator.check_schema(evaluator.schema)
        except jsonschema.SchemaError as error:
            return f'MatchesSchema: not a JSON schema ({error.message})'
    return None
