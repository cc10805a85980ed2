"""The evaluators a dataset may name: pydantic-evals' own, Synapse's, and the project's.

The project's are the pydantic-evals `Evaluator` classes discovery finds in the modules it scans
(`discovery/evaluators.py`). A dataset names one like a built-in (`{"ShortAnswer": {"max_words": 5}}`),
when it is checked and when it runs. One is left out, with the reason, when a built-in or an
earlier project evaluator has its name, when it is named `Python` (never accepted), or when it is
not a dataclass (pydantic-evals builds evaluators from their dataclass fields).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_evals.evaluators import Evaluator
from pydantic_evals.evaluators.common import DEFAULT_EVALUATORS

from ..discovery.evaluators import FoundEvaluator
from .evaluators import SYNAPSE_EVALUATORS

Source = Literal['pydantic-evals', 'synapse', 'project']
EvaluatorType = type[Evaluator[Any, Any, Any]]


@dataclass(frozen=True)
class KnownEvaluator:
    """An evaluator as the evaluators listing shows it."""

    name: str
    source: Source
    description: str
    arguments: list[dict[str, Any]]
    """Each dataclass field: `name`, `type` (as written), `required`, `default` (when it has one)."""
    module: str | None = None
    problem: str | None = None
    """Why a project evaluator is left out (None: usable)."""


@dataclass(frozen=True)
class Known:
    """The evaluator classes a dataset may name, and the listing."""

    types: tuple[EvaluatorType, ...]
    """Passed to pydantic-evals as `custom_evaluator_types` (its own are always registered)."""
    listing: list[KnownEvaluator] = field(default_factory=list)


def _built_in() -> list[tuple[EvaluatorType, Source]]:
    synapse = {cls.name(): cls for cls in SYNAPSE_EVALUATORS}
    own = [(cls, 'pydantic-evals') for cls in DEFAULT_EVALUATORS if cls.name() not in synapse]
    return [*own, *((cls, 'synapse') for cls in SYNAPSE_EVALUATORS)]  # type: ignore[list-item]


def _arguments(cls: type[Any]) -> list[dict[str, Any]]:
    if not dataclasses.is_dataclass(cls):
        return []
    shown: list[dict[str, Any]] = []
    for item in dataclasses.fields(cls):
        if not item.init:
            continue
        entry: dict[str, Any] = {'name': item.name, 'type': _type_name(item.type)}
        if item.default is not dataclasses.MISSING:
            entry.update(required=False, default=_plain(item.default))
        elif item.default_factory is not dataclasses.MISSING:
            entry.update(required=False)
        else:
            entry.update(required=True)
        shown.append(entry)
    return shown


def _type_name(annotation: Any) -> str:
    return annotation if isinstance(annotation, str) else getattr(annotation, '__name__', repr(annotation))


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, str | int | float | bool) else repr(value)


def _entry(
    cls: type[Any], source: Source, module: str | None = None, problem: str | None = None
) -> KnownEvaluator:
    doc = inspect.getdoc(cls) or ''
    if doc == inspect.getdoc(Evaluator):
        doc = ''
    return KnownEvaluator(
        name=cls.name(),
        source=source,
        description=doc.split('\n\n')[0].replace('\n', ' '),
        arguments=_arguments(cls),
        module=module,
        problem=problem,
    )


def known_evaluators(found: Sequence[FoundEvaluator] = ()) -> Known:
    """Synapse's evaluators and the usable ones of `found` (discovery's, in scan order), with the
    listing of every built-in and every found one (a left-out one with its `problem`)."""
    built_in = _built_in()
    taken = {cls.name() for cls, _source in built_in} | {'Python'}
    listing = [_entry(cls, source) for cls, source in built_in]
    types: list[EvaluatorType] = list(SYNAPSE_EVALUATORS)
    for item in found:
        problem = None
        if item.name in taken:
            problem = f'an evaluator named {item.name!r} exists already'
        elif '__dataclass_fields__' not in item.cls.__dict__:
            problem = 'not a dataclass: decorate it with @dataclass'
        listing.append(_entry(item.cls, 'project', f'{item.module}:{item.attribute}', problem))
        if problem is None:
            taken.add(item.name)
            types.append(item.cls)
    return Known(types=tuple(types), listing=listing)


def of_snapshot(snapshot: Any) -> Known:
    """`known_evaluators` of a catalog snapshot's evaluators (None: no catalog, Synapse's alone)."""
    return known_evaluators(getattr(snapshot, 'evaluators', ()) if snapshot is not None else ())
