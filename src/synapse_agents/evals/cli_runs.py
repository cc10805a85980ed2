"""`synapse eval run` and `synapse eval compare`: a dataset run here against an agent (no server
needed), gated on a baseline run and a pass rate for CI; two runs compared case by case."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console

from .. import cli_common
from ..cli_common import echo_json, fail
from ..cli_tables import Column, fitted_table
from .cli import refused, shown


def add_run_commands(app: typer.Typer) -> None:
    """`run` and `compare` on `synapse eval` (once, however often the command line is built)."""
    if any(command.name == 'run' for command in app.registered_commands):
        return
    app.command('run')(eval_run)
    app.command('compare')(eval_compare)


RESULT_COLUMNS = (
    Column('Case', least=10),
    Column('Verdict', least=7),
    Column('Why', least=20),
    Column('Cost', least=6, right=True, drop=2),
    Column('ms', least=4, right=True, drop=1),
)


def _why(row: Any) -> str:
    if row.error:
        return shown(row.error)
    failing = [
        f'{name}: {a.get("reason") or "false"}'
        for name, a in (row.assertions or {}).items()
        if not a.get('value')
    ]
    return shown('; '.join(failing)) if failing else '—'


def _run_json(run: Any, rows: list[Any]) -> dict[str, Any]:
    from .run_routes import _detail

    return _detail(run, rows).model_dump(mode='json')


def _table(dataset: str, run: Any, rows: list[Any]) -> Any:
    cells = [
        (
            row.case_name,
            'error' if row.error else ('pass' if row.passed else 'FAIL'),
            _why(row),
            '—' if row.cost is None else f'{row.cost.normalize():f}',
            str(row.duration_ms),
        )
        for row in sorted(rows, key=lambda r: (r.passed, r.position))
    ]
    rate = '—' if run.pass_rate is None else f'{run.pass_rate:.0%}'
    on = f' on {run.model}' if run.model else ''
    title = f'Eval run {run.id} of {dataset} v{run.dataset_version}{on}: {run.status}, {rate} passed'
    return fitted_table(title, RESULT_COLUMNS, cells)


def _gate(run: Any, regressions: list[str], baseline: str | None, min_pass_rate: float | None) -> str | None:
    """Why this run fails the gate, or None."""
    on = f' ({run.model})' if run.model else ''
    if run.status == 'failed':
        return f'eval run {run.id}{on} failed: {run.error}'
    if regressions:
        failing = ', '.join(regressions)
        return f'{len(regressions)} case(s) passed in {baseline} and fail in {run.id}{on}: {failing}'
    if min_pass_rate is not None and (run.pass_rate or 0.0) < min_pass_rate:
        return f'pass rate {(run.pass_rate or 0.0):.0%} of {run.id}{on} is below {min_pass_rate:.0%}'
    return None


def eval_run(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Argument(help='The dataset key.')],
    agent: Annotated[str, typer.Option(help='The slug of the agent to run.')],
    model: Annotated[
        list[str] | None,
        typer.Option(
            help="A model id (default: the agent's own); given several times, one run each, side by side."
        ),
    ] = None,
    preset: Annotated[
        list[str] | None,
        typer.Option(
            help='A registry preset key: its model with its settings; given with others, one run each.'
        ),
    ] = None,
    version: Annotated[
        int | None, typer.Option(min=1, help='The dataset version (default: the latest).')
    ] = None,
    label: Annotated[
        str | None, typer.Option(help='A label for this run (a branch, a prompt version).')
    ] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=16, help='Cases run at once.')] = 4,
    baseline: Annotated[
        str | None, typer.Option(help='A run id: exit 1 when a case that passed there fails here.')
    ] = None,
    min_pass_rate: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help='Exit 1 when the pass rate is below this (0 to 1).')
    ] = None,
    demo: Annotated[bool, typer.Option(help='Serve the offline demo agents too.')] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            '--json', help='Print the JSON GET /api/evals/runs/ID answers (several: {"runs": [...]}).'
        ),
    ] = False,
) -> None:
    """Run a dataset against an agent here (no server needed); a table of the cases' verdicts.

    Exits 1 when a case that passed in --baseline fails, or the pass rate is below --min-pass-rate
    (with several --model, when any run does); 0 otherwise, whatever the verdicts."""
    import anyio

    from . import runs
    from .execute import execute

    presets = list(preset or [])
    models: list[str | None] = list(model) if model else ([] if presets else [None])
    with cli_common.opened(ctx, agents=True, demo=demo, refused=refused) as runtime:
        if baseline is not None:
            runs.get_run(runtime.store, baseline)
        if len(models) + len(presets) == 1:
            created = [
                runs.create_run(
                    runtime.store,
                    dataset,
                    agent,
                    model=models[0] if models else None,
                    preset=presets[0] if presets else None,
                    label=label,
                    concurrency=concurrency,
                    version=version,
                )
            ]
        else:
            created = runs.create_runs(
                runtime.store,
                dataset,
                agent,
                models,
                presets=presets,
                label=label,
                concurrency=concurrency,
                version=version,
            )
        ended: dict[str, Any] = {}

        async def go() -> None:
            async def one(run_id: str) -> None:
                ended[run_id] = await execute(runtime, run_id)

            async with runtime.running(), anyio.create_task_group() as group:
                for run in created:
                    group.start_soon(one, run.id)

        anyio.run(go)
        outcomes = []
        for run in created:
            rows = runs.results(runtime.store, run.id)
            regressions = (
                [
                    c.case_name
                    for c in runs.compare(runtime.store, baseline, run.id)
                    if c.change == 'regressed'
                ]
                if baseline is not None
                else []
            )
            outcomes.append((ended[run.id], rows, regressions))
    if as_json:
        shown_runs = [{**_run_json(run, rows), 'regressions': regressed} for run, rows, regressed in outcomes]
        echo_json(shown_runs[0] if len(shown_runs) == 1 else {'runs': shown_runs})
    else:
        console = Console()
        for run, rows, _regressed in outcomes:
            console.print(_table(dataset, run, rows))
    refusals = [
        why for run, _rows, regressed in outcomes if (why := _gate(run, regressed, baseline, min_pass_rate))
    ]
    if refusals:
        fail('; '.join(refusals))


def eval_compare(
    ctx: typer.Context,
    before: Annotated[str, typer.Argument(help='The earlier run id.')],
    after: Annotated[str, typer.Argument(help='The later run id.')],
    as_json: Annotated[bool, typer.Option('--json', help='Print the cases side by side as JSON.')] = False,
) -> None:
    """Two runs case by case: what passed before and fails now first."""
    from . import runs

    with cli_common.opened(ctx, refused=refused) as runtime:
        changes = runs.compare(runtime.store, before, after)
    if as_json:
        echo_json([{'case': c.case_name, 'change': c.change} for c in changes])
        return
    columns = (
        Column('Case', least=10),
        Column('Change', least=10),
        Column('Before', least=6),
        Column('After', least=6),
    )

    def verdict(row: Any) -> str:
        return '—' if row is None else ('error' if row.error else ('pass' if row.passed else 'fail'))

    cells = [(c.case_name, c.change, verdict(c.before), verdict(c.after)) for c in changes]
    Console().print(fitted_table(f'{before} → {after}', columns, cells))
