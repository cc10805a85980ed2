"""`synapse workflows`: list, show, validate a definition file, run a workflow here, list runs.

A refusal (a bad definition, an unknown workflow or agent) is one line on standard error with exit
code 1; a run that fails exits 1 too, after its table.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from .. import cli_common
from ..cli_common import echo_json, fail, when
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

workflows_app = typer.Typer(help='Workflows: JSON pipelines of agent steps, versioned.', no_args_is_help=True)
WORKFLOW_COLUMNS = (
    Column('Key', least=8),
    Column('Name', least=8),
    Column('Version', least=3, right=True),
    Column('Steps', least=3, right=True),
    Column('Changed', least=10, drop=1),
)
RUN_COLUMNS = (
    Column('Id', least=36),
    Column('Workflow', least=8),
    Column('Status', least=7),
    Column('Step', least=4, right=True),
    Column('Tokens', least=5, right=True, drop=2),
    Column('Started', least=10, drop=1),
)
STEP_COLUMNS = (
    Column('#', least=2, right=True),
    Column('Step', least=6),
    Column('Agent', least=8),
    Column('Status', least=7),
    Column('Conversation', least=36, drop=2),
    Column('Output or error', least=20),
)


def refused(exc: Exception) -> tuple[str, int] | None:
    from ..errors import (
        UnknownAgent,
        WorkflowConflict,
        WorkflowInvalid,
        WorkflowNotFound,
        WorkflowRunNotFound,
    )

    if isinstance(exc, WorkflowInvalid):
        return '; '.join(f'{field}: {problem}' for field, problem in exc.problems), 1
    known = WorkflowNotFound | WorkflowRunNotFound | WorkflowConflict | UnknownAgent
    return (str(exc), 1) if isinstance(exc, known) else None


def _opened(
    ctx: typer.Context, *, agents: bool = False, demo: bool = False
) -> AbstractContextManager[SynapseRuntime]:
    return cli_common.opened(ctx, agents=agents, demo=demo, refused=refused)


def _read_json(text: str | None, file: Path | None, what: str) -> Any:
    try:
        if file is not None:
            return json.loads(file.read_text(encoding='utf-8'))
        return json.loads(text) if text is not None else None
    except (OSError, ValueError) as exc:
        fail(f'{what}: {exc}')


def _detail(runtime: SynapseRuntime, run_id: str) -> Any:
    from .run_routes import _detail as detail

    return detail(runtime, run_id)


def _print_run(detail: Any) -> None:
    cells = [
        (
            str(step.position),
            step.name,
            step.agent,
            step.status,
            step.conversation_id or '—',
            (step.error or json.dumps(step.output, ensure_ascii=False))[:200],
        )
        for step in detail.steps
    ]
    title = f'Workflow run {detail.id} of {detail.workflow} v{detail.workflow_version}: {detail.status}'
    console = Console()
    console.print(fitted_table(title, STEP_COLUMNS, cells))
    if detail.error:
        console.print(f'Error: {detail.error}', markup=False)
    else:
        console.print(json.dumps(detail.output, indent=2, ensure_ascii=False), markup=False)


@workflows_app.command('list')
def list_command(
    ctx: typer.Context,
    sandbox: Annotated[bool, typer.Option(help='Include sandbox workflows.')] = False,
    as_json: Annotated[bool, typer.Option('--json', help='Print JSON.')] = False,
) -> None:
    """List the workflows by key (sandboxes left out unless --sandbox)."""
    from . import book

    with _opened(ctx) as runtime:
        rows = book.listed(runtime.store, 'include' if sandbox else 'exclude')
    if as_json:
        echo_json([{'key': r.key, 'name': r.name, 'version': r.version, 'steps': r.step_count} for r in rows])
        return
    cells = [(r.key, r.name, str(r.version), str(r.step_count), when(r.updated_at)) for r in rows]
    Console().print(fitted_table('Workflows', WORKFLOW_COLUMNS, cells))


@workflows_app.command('show')
def show_command(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help='The workflow key.')],
    version: Annotated[int | None, typer.Option(min=1, help='A version (default: the latest).')] = None,
) -> None:
    """Print a workflow's definition (now, or at --version) as JSON."""
    from . import book

    with _opened(ctx) as runtime:
        found = book.read(runtime.store, key, version)
    echo_json(
        {
            'key': found.key,
            'name': found.name,
            'version': found.version,
            'latest_version': found.latest,
            'is_sandbox': found.is_sandbox,
            'definition': found.definition,
        }
    )


@workflows_app.command('validate')
def validate_command(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Argument(help="A JSON file holding a definition, or a stored workflow's key.")
    ],
    demo: Annotated[bool, typer.Option(help='Know the offline demo agents too.')] = False,
) -> None:
    """Check a definition file, or a stored workflow, against the agents as they are now (exit 1,
    naming each step and path at fault)."""
    import anyio

    from . import book
    from .agents import checked

    path = Path(target)
    raw = _read_json(None, path, target) if path.is_file() else None
    with _opened(ctx, agents=True, demo=demo) as runtime:
        if raw is None:
            raw = book.read(runtime.store, target).definition
        definition = anyio.run(checked, runtime, raw)
    typer.echo(f'{target}: valid, {len(definition.steps)} steps.')


@workflows_app.command('run')
def run_command(
    ctx: typer.Context,
    key: Annotated[str, typer.Argument(help='The workflow key.')],
    input_json: Annotated[str | None, typer.Option('--input', help='The run input, as JSON.')] = None,
    input_file: Annotated[Path | None, typer.Option(help='A file holding the run input (JSON).')] = None,
    demo: Annotated[bool, typer.Option(help='Serve the offline demo agents too.')] = False,
    as_json: Annotated[
        bool, typer.Option('--json', help='Print the JSON GET /api/workflow-runs/ID answers.')
    ] = False,
) -> None:
    """Run a workflow here (no server needed): a table of its steps, then its output; exit 1 when it fails."""
    import anyio

    from . import book, runs
    from .agents import checked
    from .execute import execute

    value = _read_json(input_json, input_file, 'input')
    with _opened(ctx, agents=True, demo=demo) as runtime:
        found = book.read(runtime.store, key)
        anyio.run(checked, runtime, found.definition)
        run = runs.create_run(runtime.store, found, value)

        async def go() -> None:
            async with runtime.running():
                await execute(runtime, run.id)

        anyio.run(go)
        detail = _detail(runtime, run.id)
    if as_json:
        echo_json(detail.model_dump(mode='json'))
    else:
        _print_run(detail)
    if detail.status != 'completed':
        raise typer.Exit(1)


@workflows_app.command('runs')
def runs_command(
    ctx: typer.Context,
    run_id: Annotated[str | None, typer.Argument(help='A run id: that run with its steps.')] = None,
    workflow: Annotated[str | None, typer.Option(help='Only the runs of this workflow key.')] = None,
    status: Annotated[str | None, typer.Option(help='Only runs running, completed or failed.')] = None,
    limit: Annotated[int, typer.Option(min=1, max=200)] = 50,
    as_json: Annotated[bool, typer.Option('--json', help='Print JSON.')] = False,
) -> None:
    """List workflow runs, newest first (or show one with its steps)."""
    from . import runs
    from .run_routes import WorkflowRunOut

    with _opened(ctx) as runtime:
        if run_id is not None:
            detail = _detail(runtime, run_id)
        else:
            rows = runs.listed(
                runtime.store, workflow_key=workflow, status=status, sandbox='include', limit=limit
            )
    if run_id is not None:
        if as_json:
            echo_json(detail.model_dump(mode='json'))
        else:
            _print_run(detail)
        return
    if as_json:
        echo_json([WorkflowRunOut.of(r).model_dump(mode='json') for r in rows])
        return
    cells = [
        (
            r.id,
            r.workflow_key,
            r.status,
            f'{r.current_step_index + 1}/{r.step_count}',
            str(r.total_tokens),
            when(r.started_at),
        )
        for r in rows
    ]
    Console().print(fitted_table('Workflow runs', RUN_COLUMNS, cells))
