"""Every benchmark in one run: a table of medians and p95s against their targets, and
`docs/benchmarks.md` written from it.

Each script runs in its own process (a cold import must be cold; a server bench must not share
this process's event loop) and reports through `--json` (see `results.py`); its own detailed
output is kept too and goes into the document.

    python bench/run_all.py                    # everything (`make bench`)
    python bench/run_all.py --only turn,history
    python bench/run_all.py --no-write         # print, leave docs/benchmarks.md alone
    python bench/run_all.py --only peer --against 64aba83   # that commit served side by side
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table

from results import Result, read_json

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent


@dataclass
class Script:
    """One benchmark script and the arguments `make bench` gives it."""

    key: str
    title: str
    file: str
    args: tuple[str, ...] = ()


SCRIPTS = (
    Script('discovery', 'Discovery', 'bench_discovery.py'),
    Script('peer', 'Against the peer, and per feature', 'bench_peer.py'),
    Script('floors', 'What pydantic-ai charges for recording', 'bench_floors.py'),
    Script('turn', 'Chat turns', 'bench_turn.py'),
    Script('python-api', 'Python API', 'bench_python_api.py'),
    Script('spending', 'Spending limits', 'bench_spending.py'),
    Script('rules', 'Rules', 'bench_rules.py'),
    Script('compression', 'History compression', 'bench_compression.py'),
    Script('memory', 'Memory recall', 'bench_memory.py'),
    Script('evals', 'Eval runs', 'bench_evals.py'),
    Script('privacy', 'PII redaction', 'bench_privacy.py'),
    Script('workflows', 'Workflow runs', 'bench_workflows.py'),
    Script(
        'tasks', 'Agent tasks', 'bench_tasks.py', ('--tick-runs', '10', '--firings', '20', '--tasks', '100')
    ),
    Script('traces', 'Traces', 'bench_traces.py', ('--turns', '100', '--runs', '15')),
    Script('approvals', 'Waiting tool calls', 'bench_approvals.py'),
    Script('history', 'History at scale', 'bench_history.py'),
    Script('dashboard', 'Dashboard', 'bench_dashboard.py'),
)


@dataclass
class Outcome:
    script: Script
    results: list[Result]
    output: str
    seconds: float
    returncode: int


AGAINST = {'peer'}
"""The scripts that take `--against REF` (another commit served side by side)."""


def run(script: Script, console: Console, against: str | None = None) -> Outcome:
    """Run one script with `--json`, echoing its output as it goes."""
    with tempfile.NamedTemporaryFile(suffix='.json', delete=False) as handle:
        json_path = Path(handle.name)
    extra = ('--against', against) if against and script.key in AGAINST else ()
    command = [sys.executable, str(BENCH / script.file), *script.args, *extra, '--json', str(json_path)]
    console.rule(f'[bold]{script.title}[/] — {" ".join(command[1:-2])}')
    started = time.perf_counter()
    env = {**os.environ, 'PYTHONUNBUFFERED': '1'}
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:
        console.out(line, end='', highlight=False)
        lines.append(line)
    returncode = process.wait()
    seconds = time.perf_counter() - started
    results = read_json(json_path) if json_path.stat().st_size else []
    json_path.unlink(missing_ok=True)
    return Outcome(script, results, ''.join(lines), seconds, returncode)


def verdict(result: Result) -> str:
    if result.passed is None:
        return ''
    return 'pass' if result.passed else 'MISS'


def number(value: float | None, unit: str) -> str:
    if value is None:
        return ''
    if unit in {'ms', 'KB', 'MB', 's'}:
        return f'{value:,.2f}' if abs(value) < 10 else f'{value:,.1f}'
    return f'{value:,.0f}' if float(value).is_integer() else f'{value:,.2f}'


def table(outcomes: list[Outcome]) -> Table:
    grid = Table(title='Synapse benchmarks', show_lines=False)
    for name, justify in (('group', 'left'), ('figure', 'left'), ('median', 'right'), ('p95', 'right'),
                          ('unit', 'left'), ('n', 'right'), ('target', 'left'), ('', 'left')):  # fmt: skip
        grid.add_column(name, justify=justify)  # type: ignore[arg-type]
    for outcome in outcomes:
        for result in outcome.results:
            mark = verdict(result)
            grid.add_row(
                result.group,
                result.name,
                number(result.median, result.unit),
                number(result.p95, result.unit),
                result.unit,
                str(result.samples),
                result.target,
                f'[green]{mark}[/]' if mark == 'pass' else f'[red bold]{mark}[/]',
            )
    return grid


def machine() -> str:
    cpu = memory = ''  # best effort: /proc exists on Linux only
    with contextlib.suppress(OSError):
        names = [
            line for line in Path('/proc/cpuinfo').read_text().splitlines() if line.startswith('model name')
        ]
        cpu = names[0].split(':', 1)[1].strip() if names else ''
    with contextlib.suppress(OSError, ValueError, IndexError):
        memory = f', {int(Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024:.0f} GiB'
    return (
        f'{os.cpu_count()} cores{memory}, {cpu or platform.processor()}, Python {platform.python_version()}'
    )


def commit() -> str:
    try:
        head = subprocess.run(
            ['git', 'rev-parse', '--short', 'HEAD'], cwd=ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(  # the page this run is about to rewrite does not count
            ['git', 'status', '--porcelain', '--untracked-files=no', '--', '.', ':!docs/benchmarks.md'],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    except OSError:
        return 'unknown'
    return head.stdout.strip() + (' (with uncommitted changes)' if dirty.stdout.strip() else '')


def markdown(outcomes: list[Outcome], total_seconds: float) -> str:
    """docs/benchmarks.md: the table, how to reproduce it, and each script's own output."""
    lines = [
        '# Benchmarks',
        '',
        '<!-- Written by `make bench` (bench/run_all.py); edit the scripts, not this file. -->',
        '',
        f'Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {machine()}, commit {commit()}; '
        f'the whole run took {total_seconds / 60:.1f} minutes; load average at its end (1, 5, 15 min): '
        f'{", ".join(f"{x:.2f}" for x in os.getloadavg())}.',
        '',
        'Every figure is compared with its floor in the same run (the agent run directly with',
        'pydantic-ai, a plain import, the same query at small scale), because these machines are',
        'noisy: read the differences and ratios, not the absolute times.',
        '',
        'Reproduce: `make bench` (all of it), or one script: `.venv/bin/python bench/<script>.py --help`.',
        'PostgreSQL figures need a server at `postgresql://postgres@127.0.0.1:5432` (the history bench',
        'creates a `synapse_bench` database there).',
        '',
        (BENCH / 'notes.md').read_text().rstrip(),
        '',
    ]
    for outcome in outcomes:
        lines += [f'## {outcome.script.title}', '']
        if not outcome.results:
            lines.append(f'The script reported nothing (exit code {outcome.returncode}).')
        groups = dict.fromkeys(r.group for r in outcome.results)
        for group in groups:
            rows = [r for r in outcome.results if r.group == group]
            if len(groups) > 1:
                lines += [f'### {group}', '']
            lines += [
                '| figure | median | p95 | unit | n | target | |',
                '| --- | ---: | ---: | --- | ---: | --- | --- |',
            ]
            for r in rows:
                lines.append(
                    f'| {r.name} | {number(r.median, r.unit)} | {number(r.p95, r.unit)} | {r.unit} | '
                    f'{r.samples} | {r.target} | {verdict(r)} |'
                )
            notes = [r for r in rows if r.note]
            if notes:
                lines.append('')
                lines += [f'- {r.name}: {r.note}' for r in notes]
            lines.append('')
        lines += [
            '',
            f'`bench/{outcome.script.file}` took {outcome.seconds:.0f} s and printed:',
            '',
            '```text',
            outcome.output.rstrip(),
            '```',
            '',
        ]
    return '\n'.join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--only', help='comma-separated: ' + ','.join(s.key for s in SCRIPTS))
    parser.add_argument('--no-write', action='store_true', help='do not write docs/benchmarks.md')
    parser.add_argument('--out', default=str(ROOT / 'docs' / 'benchmarks.md'))
    parser.add_argument(
        '--against', metavar='REF', help='also serve this commit side by side (bench_peer.py), as a ratio'
    )
    args = parser.parse_args()
    chosen = [s for s in SCRIPTS if not args.only or s.key in args.only.split(',')]
    console = Console(width=None if sys.stdout.isatty() else 180)
    started = time.perf_counter()
    outcomes = [run(script, console, args.against) for script in chosen]
    total = time.perf_counter() - started
    console.print()
    console.print(table(outcomes))
    console.print(f'{total / 60:.1f} minutes in all')
    failed = [o.script.file for o in outcomes if o.returncode != 0]
    missed = [f'{r.group}: {r.name}' for o in outcomes for r in o.results if r.passed is False]
    if not args.no_write:
        Path(args.out).write_text(markdown(outcomes, total) + '\n')
        console.print(f'wrote {args.out}')
    if failed:
        console.print(f'[red]failed: {", ".join(failed)}[/]')
    if missed:
        console.print(f'[red]missed targets: {"; ".join(missed)}[/]')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
