"""`synapse eval`: eval datasets on the command line: list, show, add a case, import and export
(`cli_runs.py` adds `run` and `compare`).

A refusal (a bad case, an unknown dataset, a change on a version that is no longer the latest) is
one line on standard error with exit code 1.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .. import cli_common
from ..cli_common import echo_json, fail, when
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime
    from .book import DatasetVersion

eval_app = typer.Typer(
    help='Eval datasets: test cases in pydantic-evals form, versioned.', no_args_is_help=True
)
DATASET_COLUMNS = (
    Column('Key', least=8),
    Column('Name', least=8),
    Column('Version', least=3, right=True),
    Column('Cases', least=3, right=True),
    Column('Tags', least=6, drop=2),
    Column('Changed', least=10, drop=1),
)
CASE_COLUMNS = (
    Column('Name', least=10),
    Column('Message', least=20),
    Column('Expected', least=10, drop=2),
    Column('Evaluators', least=10, drop=1),
)
SHOWN_CHARS = 80


def refused(exc: Exception) -> tuple[str, int] | None:
    from ..errors import (
        EvalConflict,
        EvalDatasetNotFound,
        EvalInvalid,
        EvalPresetNotFound,
        EvalRunNotFound,
        UnknownAgent,
    )

    if isinstance(exc, EvalInvalid):
        return f'{exc.field}: {exc.problem}', 1
    known = EvalDatasetNotFound | EvalRunNotFound | EvalPresetNotFound | EvalConflict | UnknownAgent
    return (str(exc), 1) if isinstance(exc, known) else None


def _opened(ctx: typer.Context, *, agents: bool = False) -> AbstractContextManager[SynapseRuntime]:
    return cli_common.opened(ctx, agents=agents, refused=refused)


def _types(runtime: SynapseRuntime) -> Any:
    """The evaluator classes a dataset may name: Synapse's and the project's (discovery's scan)."""
    from .known import of_snapshot

    return of_snapshot(runtime.catalog.scan() if runtime.catalog is not None else None).types


def shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = ' '.join(text.split())
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + '…'


def _evaluator_names(specs: list[Any]) -> str:
    return ', '.join(spec if isinstance(spec, str) else next(iter(spec)) for spec in specs) or '—'


def _out(found: DatasetVersion) -> dict[str, Any]:
    from .routes import DatasetOut

    return DatasetOut.of(found).model_dump(mode='json')


@eval_app.command('datasets')
def eval_datasets(
    ctx: typer.Context,
    tag: Annotated[str | None, typer.Option(help='Only those carrying this tag.')] = None,
    as_json: Annotated[
        bool, typer.Option('--json', help='Print the JSON GET /api/evals/datasets answers.')
    ] = False,
) -> None:
    """The eval datasets, most recently changed first."""
    from . import book
    from .routes import DatasetSummary

    with _opened(ctx) as runtime:
        rows = book.listed(runtime.store, tag)
    if as_json:
        echo_json({'datasets': [DatasetSummary.of(row).model_dump(mode='json') for row in rows]})
        return
    if not rows:
        Console().print('No eval datasets.')
        return
    cells = [
        (
            row.key,
            row.name,
            str(row.version),
            str(row.case_count),
            ', '.join(row.tags or []) or '—',
            when(row.updated_at),
        )
        for row in rows
    ]
    Console().print(fitted_table('Eval datasets', DATASET_COLUMNS, cells))


@eval_app.command('show')
def eval_show(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help='The dataset key.')],
    version: Annotated[int | None, typer.Option(min=1, help='That version (default: the latest).')] = None,
    as_json: Annotated[
        bool, typer.Option('--json', help='Print the JSON GET /api/evals/datasets/KEY answers.')
    ] = False,
) -> None:
    """A dataset's cases, at its latest version or at --version."""
    from . import book

    with _opened(ctx) as runtime:
        found = book.read(runtime.store, key, version)
    if as_json:
        echo_json(_out(found))
        return
    cells = [
        (
            case['name'],
            shown(case['inputs']['message']),
            shown(case['expected_output']) if 'expected_output' in case else '—',
            _evaluator_names(case.get('evaluators', [])),
        )
        for case in found.cases
    ]
    title = f'{found.name} ({found.key}), version {found.version} of {found.latest}'
    Console().print(fitted_table(title, CASE_COLUMNS, cells))
    if found.evaluators:
        Console().print(escape(f'On every case: {_evaluator_names(found.evaluators)}'), highlight=False)


@eval_app.command('add-case')
def eval_add_case(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help='The dataset key.')],
    message: Annotated[str | None, typer.Option(help='The message the case sends to the agent.')] = None,
    name: Annotated[str | None, typer.Option(help='The case name (default: the message, shortened).')] = None,
    expected: Annotated[str | None, typer.Option(help='The expected output (text).')] = None,
    evaluator: Annotated[
        list[str] | None,
        typer.Option(
            help='An evaluator in pydantic-evals form, as JSON: \'{"Contains": "refund"}\'. Repeatable.'
        ),
    ] = None,
    from_message: Annotated[
        str | None,
        typer.Option(help='Save the turn of this message id (its question or its answer) instead.'),
    ] = None,
    include_history: Annotated[
        bool, typer.Option(help='With --from-message: send the conversation before it too.')
    ] = False,
    as_json: Annotated[bool, typer.Option('--json', help='Print the dataset as it now is.')] = False,
) -> None:
    """Add one case to a dataset (a new version): written here, or saved from a turn that happened."""
    from ..errors import EvalInvalid
    from . import book
    from .from_messages import case_from_message

    specs: list[Any] = []
    for index, text in enumerate(evaluator or []):
        try:
            specs.append(json.loads(text))
        except ValueError:
            specs.append(text)  # a bare name: 'EqualsExpected'
        if not isinstance(specs[-1], str | dict):
            fail(f'--evaluator {index + 1}: a name or a JSON object')
    if (message is None) == (from_message is None):
        fail('give --message or --from-message (one of them)')
    with _opened(ctx, agents=True) as runtime:
        current = book.read(runtime.store, key)
        if from_message is not None:
            case = case_from_message(
                runtime.store,
                from_message,
                taken_names={c['name'] for c in current.cases},
                name=name,
                expected='output' if expected is None else 'none',
                include_history=include_history,
                evaluators=specs,
            )
            note = 'case added from a message'
        else:
            assert message is not None
            case = {
                'name': name or ' '.join(message.split())[:60],
                'inputs': {'message': message},
                'evaluators': specs,
            }
            if expected is not None:
                case['expected_output'] = expected
            note = 'case added'
        try:
            changed = book.change_with_cases(
                runtime.store, current, [*current.cases, case], note, types=_types(runtime)
            )
        except EvalInvalid as invalid:
            fail(f'{invalid.field}: {invalid.problem}')
    if as_json:
        echo_json(_out(changed))
        return
    Console().print(
        escape(f'{key}: version {changed.version}, {len(changed.cases)} cases (added {case["name"]!r}).'),
        highlight=False,
    )


@eval_app.command('import')
def eval_import(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help='A pydantic-evals dataset file (.yaml, .yml or .json).')],
    key: Annotated[
        str, typer.Option(help='The dataset key: a new dataset, or the next version of this one.')
    ],
    name: Annotated[str | None, typer.Option(help='Its name (default: the key, or the name it has).')] = None,
) -> None:
    """Read a pydantic-evals dataset file into a dataset."""
    from ..errors import EvalDatasetNotFound
    from . import book
    from .cases import parse_file

    suffix = path.suffix.lower()
    if suffix not in ('.yaml', '.yml', '.json'):
        fail(f'{path}: a .yaml, .yml or .json file')
    try:
        text = path.read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError) as error:
        fail(f'{path}: cannot be read ({error.__class__.__name__})')
    with _opened(ctx, agents=True) as runtime:
        raw = parse_file(text, 'json' if suffix == '.json' else 'yaml')
        try:
            book.read(runtime.store, key)
        except EvalDatasetNotFound:
            done = book.create(
                runtime.store,
                key,
                name or key,
                cases=raw['cases'],
                evaluators=raw.get('evaluators'),
                note='imported',
                types=_types(runtime),
            )
        else:
            change = book.DatasetChange(name=name, cases=raw['cases'], evaluators=raw.get('evaluators') or [])
            done = book.change(runtime.store, key, change, note='imported', types=_types(runtime))
    Console().print(
        escape(f'{key}: version {done.version}, {len(done.cases)} cases imported from {path}.'),
        highlight=False,
    )


@eval_app.command('export')
def eval_export(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help='The dataset key.')],
    output: Annotated[
        Path | None, typer.Option('--output', '-o', help='Write here (default: standard output).')
    ] = None,
    format: Annotated[str, typer.Option(help='yaml or json.')] = 'yaml',
    version: Annotated[int | None, typer.Option(min=1, help='That version (default: the latest).')] = None,
) -> None:
    """Write a dataset as a pydantic-evals dataset file."""
    from . import book
    from .cases import file_text

    if format not in ('yaml', 'json'):
        fail('--format: yaml or json')
    with _opened(ctx) as runtime:
        found = book.read(runtime.store, key, version)
    text = file_text(found.cases, found.evaluators, 'json' if format == 'json' else 'yaml')
    if output is None:
        typer.echo(text, nl=False)
        return
    if output.exists():
        fail(f'{output}: already exists (nothing is overwritten)')
    output.write_text(text, encoding='utf-8')
    Console().print(escape(f'{key} version {found.version} written to {output}.'), highlight=False)
