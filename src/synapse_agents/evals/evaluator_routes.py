"""`GET /api/evals/evaluators`: the evaluators a dataset may name, and `evaluator_types`, what the
dataset routes check datasets with: pydantic-evals' own, Synapse's, and the project's (the
evaluator classes the catalog's current scan found, `evals/known.py`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from ..chat.service import current_snapshot
from ..web.context import SynapseContext, get_context
from .cases import EvaluatorTypes
from .known import Known, of_snapshot

router = APIRouter(tags=['evals'])

Context = Annotated[SynapseContext, Depends(get_context)]


async def known(context: SynapseContext) -> Known:
    """The evaluators of the catalog's current scan (scanned in a thread when something changed)."""
    catalog = getattr(context, 'catalog', None)
    return of_snapshot(await current_snapshot(catalog) if catalog is not None else None)


async def evaluator_types(context: SynapseContext) -> EvaluatorTypes:
    """The evaluator classes a dataset may name beside pydantic-evals' own."""
    return (await known(context)).types


class EvaluatorArgument(BaseModel):
    name: str
    type: str = Field(description='The annotation, as the class writes it.')
    required: bool
    default: Any = Field(None, description='The default, when the argument has a plain one.')


class EvaluatorOut(BaseModel):
    name: str = Field(description='How a dataset names it: `"Name"` or `{"Name": arguments}`.')
    source: Literal['pydantic-evals', 'synapse', 'project']
    description: str = Field(description="The first paragraph of the class's docstring.")
    arguments: list[EvaluatorArgument]
    module: str | None = Field(description='`module:attribute` of a project evaluator.')
    problem: str | None = Field(description='Why a project evaluator is left out; null: usable.')


class EvaluatorList(BaseModel):
    evaluators: list[EvaluatorOut]


@router.get('/api/evals/evaluators', response_model=EvaluatorList)
async def list_evaluators(context: Context) -> EvaluatorList:
    """Every evaluator a dataset may name, built-in first, with its arguments; the project's
    (found by discovery) after them, a left-out one with its `problem`."""
    listing = (await known(context)).listing
    return EvaluatorList(
        evaluators=[
            EvaluatorOut(
                name=item.name,
                source=item.source,
                description=item.description,
                arguments=[EvaluatorArgument(**argument) for argument in item.arguments],
                module=item.module,
                problem=item.problem,
            )
            for item in listing
        ]
    )
