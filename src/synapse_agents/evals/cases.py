"""Cases in pydantic-evals' own serialised form: checked, normalised, read from and written to files.

A case is `{"name", "inputs", "expected_output", "metadata", "evaluators"}` as pydantic-evals
writes it, with Synapse's inputs: `message` (required, the user message sent to the agent),
`attachments` (optional: the files sent with it, `case_files.py`) and `history` (optional: the
conversation before it, as pydantic-ai's model messages in JSON). Every
evaluator is read by pydantic-evals itself (`Dataset.from_dict`) with Synapse's (and the
project's, `known.py`) registered beside its own, so a dataset file written by either reads in
the other. `Python` (which evaluates code) is never accepted, and an `LLMJudge` must name its
model: a judge never falls back to a default provider nobody chose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import yaml  # type: ignore[import-untyped]
from pydantic import ValidationError
from pydantic_ai.messages import ModelMessagesTypeAdapter
from pydantic_evals import Dataset
from pydantic_evals.evaluators import Evaluator
from pydantic_evals.evaluators.common import DEFAULT_EVALUATORS

from .._storable import MAX_DEPTH, flaw
from ..errors import EvalInvalid
from .case_files import check_files
from .evaluators import SYNAPSE_EVALUATORS, check_arguments

MAX_CASES = 2000
MAX_NAME = 200
Format = Literal['json', 'yaml']
_CASE_KEYS = frozenset({'name', 'inputs', 'expected_output', 'metadata', 'evaluators'})
_INPUT_KEYS = frozenset({'message', 'attachments', 'history'})
_UNKNOWN = re.compile(r"^Evaluator '(.*)' is not in the provided registry")
EvaluatorTypes = Sequence[type[Evaluator[Any, Any, Any]]]


@dataclass(frozen=True)
class CheckedCases:
    """A dataset's cases and dataset-wide evaluators, checked and in the normal serialised form."""

    cases: list[dict[str, Any]]
    evaluators: list[Any]


def _spec_name(spec: Any) -> str | None:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, dict) and len(spec) == 1:
        return str(next(iter(spec)))
    return None


def _check_spec(spec: Any, where: str) -> None:
    name = _spec_name(spec)
    if name is None:
        raise EvalInvalid(where, 'an evaluator is a name, or an object with one key: its name')
    if name == 'Python':
        raise EvalInvalid(where, 'Python evaluators run code and are not accepted')
    if name == 'LLMJudge':
        arguments = spec.get('LLMJudge') if isinstance(spec, dict) else None
        if not isinstance(arguments, dict) or not arguments.get('model'):
            raise EvalInvalid(
                where, 'LLMJudge must name its model, e.g. {"LLMJudge": {"rubric": ..., "model": ...}}'
            )


def _check_case(case: Any, where: str, names: set[str]) -> None:
    if not isinstance(case, dict):
        raise EvalInvalid(where, 'a case is an object')
    unknown = sorted(set(case) - _CASE_KEYS)
    if unknown:
        raise EvalInvalid(f'{where}.{unknown[0]}', 'not a field of a case')
    name = case.get('name')
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise EvalInvalid(f'{where}.name', f'a name of 1 to {MAX_NAME} characters is required')
    if name in names:
        raise EvalInvalid(f'{where}.name', f'two cases are named {name!r}')
    names.add(name)
    inputs = case.get('inputs')
    if not isinstance(inputs, dict):
        raise EvalInvalid(f'{where}.inputs', 'an object with at least `message`')
    unknown = sorted(set(inputs) - _INPUT_KEYS)
    if unknown:
        raise EvalInvalid(
            f'{where}.inputs.{unknown[0]}', 'the inputs are `message`, `attachments` and `history`'
        )
    message = inputs.get('message')
    if not isinstance(message, str) or not message.strip():
        raise EvalInvalid(f'{where}.inputs.message', 'the message sent to the agent is required')
    if 'attachments' in inputs:
        check_files(inputs['attachments'], f'{where}.inputs.attachments')
    if 'history' in inputs:
        try:
            ModelMessagesTypeAdapter.validate_python(inputs['history'])
        except ValidationError as error:
            first = error.errors()[0]
            raise EvalInvalid(
                f'{where}.inputs.history', f'not pydantic-ai model messages ({first["msg"]})'
            ) from None
    if case.get('metadata') is not None and not isinstance(case['metadata'], dict):
        raise EvalInvalid(f'{where}.metadata', 'an object or null')
    evaluators = case.get('evaluators', [])
    if not isinstance(evaluators, list):
        raise EvalInvalid(f'{where}.evaluators', 'a list of evaluators')
    for index, spec in enumerate(evaluators):
        _check_spec(spec, f'{where}.evaluators.{index}')
    problem = flaw(case, max_depth=MAX_DEPTH)
    if problem is not None:
        raise EvalInvalid(problem.location(where), problem.message)


def _loaded(raw: dict[str, Any], where: str, types: EvaluatorTypes) -> Dataset[Any, Any, Any]:
    """The dataset as pydantic-evals reads it, with `types` registered beside its own evaluators;
    its complaint (an unknown evaluator: with the names it knows), as an `EvalInvalid` at `where`."""
    try:
        dataset = Dataset[Any, Any, Any].from_dict(raw, custom_evaluator_types=types)
    except ExceptionGroup as group:
        said = str(group.exceptions[0]).splitlines()[0]
        if (unknown := _UNKNOWN.match(said)) is not None:
            names = sorted({cls.name() for cls in (*DEFAULT_EVALUATORS, *types)})
            said = f'unknown evaluator {unknown.group(1)!r}; the known ones: {", ".join(names)}'
        raise EvalInvalid(where, said) from None
    except (ValueError, TypeError, ValidationError) as error:
        raise EvalInvalid(where, str(error).splitlines()[0]) from None
    evaluators = [*dataset.evaluators, *(e for case in dataset.cases for e in case.evaluators)]
    for evaluator in evaluators:
        if (problem := check_arguments(evaluator)) is not None:
            raise EvalInvalid(where, problem)
    return dataset


def checked(
    cases: Any, evaluators: Any = None, *, where: str = '', types: EvaluatorTypes = SYNAPSE_EVALUATORS
) -> CheckedCases:
    """`cases` and the dataset-wide `evaluators` checked (`EvalInvalid` naming the first fault) and
    normalised as pydantic-evals writes them (an evaluator's short form, no empty fields). `types`:
    the evaluator classes a dataset may name beside pydantic-evals' own (`known.py`: Synapse's and
    the project's)."""
    prefix = f'{where}.' if where else ''
    if not isinstance(cases, list):
        raise EvalInvalid(f'{prefix}cases', 'a list of cases')
    if len(cases) > MAX_CASES:
        raise EvalInvalid(f'{prefix}cases', f'at most {MAX_CASES} cases')
    evaluators = [] if evaluators is None else evaluators
    if not isinstance(evaluators, list):
        raise EvalInvalid(f'{prefix}evaluators', 'a list of evaluators')
    for index, spec in enumerate(evaluators):
        _check_spec(spec, f'{prefix}evaluators.{index}')
    names: set[str] = set()
    for index, case in enumerate(cases):
        _check_case(case, f'{prefix}cases.{index}', names)
        _loaded({'cases': [case]}, f'{prefix}cases.{index}.evaluators', types)
    dataset = _loaded({'cases': cases, 'evaluators': evaluators}, f'{prefix}evaluators', types)
    dumped = dataset.model_dump(
        mode='json', by_alias=True, exclude_defaults=True, context={'use_short_form': True}
    )
    return CheckedCases(cases=list(dumped.get('cases', [])), evaluators=list(dumped.get('evaluators', [])))


def dataset_of(
    cases: Sequence[dict[str, Any]], evaluators: Sequence[Any], types: EvaluatorTypes = SYNAPSE_EVALUATORS
) -> Dataset[Any, Any, Any]:
    """Stored (already checked) cases as a pydantic-evals `Dataset`, ready to evaluate."""
    return _loaded({'cases': list(cases), 'evaluators': list(evaluators)}, 'cases', types)


def parse_file(text: str, fmt: Format) -> dict[str, Any]:
    """A pydantic-evals dataset file's content (`$schema` dropped); `EvalInvalid` when it is not one."""
    try:
        raw = json.loads(text) if fmt == 'json' else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as error:
        raise EvalInvalid('text', f'not {fmt.upper()} ({str(error).splitlines()[0]})') from None
    if not isinstance(raw, dict) or 'cases' not in raw:
        raise EvalInvalid('text', 'a dataset file is an object with `cases`')
    raw.pop('$schema', None)
    unknown = sorted(set(raw) - {'cases', 'evaluators'})
    if unknown:
        raise EvalInvalid(f'text.{unknown[0]}', 'a dataset file holds `cases` and `evaluators`')
    return raw


def file_text(cases: Sequence[dict[str, Any]], evaluators: Sequence[Any], fmt: Format) -> str:
    """The dataset as a pydantic-evals dataset file (`Dataset.from_text` reads it back)."""
    content: dict[str, Any] = {'cases': list(cases)}
    if evaluators:
        content['evaluators'] = list(evaluators)
    if fmt == 'json':
        return json.dumps(content, indent=2, ensure_ascii=False) + '\n'
    readable = yaml.safe_dump(content, sort_keys=False, allow_unicode=True)
    # PyYAML writes some characters raw that its reader takes for line breaks (U+0085, say): when
    # the readable text does not read back the same, every non-ASCII character is escaped instead.
    if yaml.safe_load(readable) == content:
        return str(readable)
    return str(yaml.safe_dump(content, sort_keys=False, allow_unicode=False))
