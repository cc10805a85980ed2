"""The pydantic-evals evaluators a project defines: found where its agents are found.

Every class of a scanned module that subclasses pydantic-evals' `Evaluator`, is defined in that
module (not imported into it) and is not abstract is a `FoundEvaluator`, named as pydantic-evals
names it in a dataset (`Evaluator.name()`: the class name unless the class says otherwise). Which
of them a dataset may use (a name taken by a built-in, a class that is not a dataclass) is the
evals area's decision (`evals/known.py`); discovery only lists them, each module once per import.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pydantic_evals.evaluators import Evaluator


@dataclass(frozen=True)
class FoundEvaluator:
    """An evaluator class a scanned module defines."""

    name: str
    """How a dataset names it (`{"ShortAnswer": {"max_words": 5}}`)."""
    cls: type[Evaluator[Any, Any, Any]]
    module: str
    attribute: str


def evaluators_in(module: ModuleType) -> list[FoundEvaluator]:
    """The evaluator classes `module` defines, in the order it defines them."""
    found: list[FoundEvaluator] = []
    for attribute, value in list(vars(module).items()):
        if not inspect.isclass(value) or value is Evaluator or not issubclass(value, Evaluator):
            continue
        if value.__module__ != module.__name__ or inspect.isabstract(value):
            continue
        try:
            name = value.name()
        except Exception:  # a class whose own name() raises is named by its class name
            name = value.__name__
        found.append(FoundEvaluator(str(name), value, module.__name__, attribute))
    return found
