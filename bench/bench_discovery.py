"""Discovery of 250 agents spread over 50 modules: cold (first import) and warm (nothing changed).

A generated project (`--modules` files of `--agents` agents each, every agent with instructions,
two tools, model settings and metadata) is scanned by a fresh `Catalog`:

- plain import: the same modules imported with `importlib.import_module`, no Synapse (the floor:
  most of a cold scan is pydantic-ai building each tool's schema in the user's own code);
- cold: a new copy of the project under a new package name, so every module is imported for the
  first time (pydantic-ai itself is already imported, as it is in a running server); once more
  with the first agent of each module on `openai:gpt-4o` and no key set (the missing-key path);
- warm: `scan()` again with nothing changed — it must import nothing (every generated module bumps
  a counter when it runs, and the counter must not move) and take at most 5 ms;
- edit: one module edited, then `scan()` — what a hot reload costs;
- listing: building the `GET /api/agents` payload from a warm snapshot (for scale).

Median and p95 of each, over repeated runs, in one process.

    python bench/bench_discovery.py
    python bench/bench_discovery.py --modules 50 --agents 5 --cold-runs 7 --warm-runs 500
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from results import Result, write_json

WARM_LIMIT_MS = 5.0
PROBE = '_synapse_bench_probe'

MODULE = """
import {probe}
{probe}.count += 1

from pydantic_ai import Agent, RunContext
"""

AGENT = '''

agent_{i} = Agent(
    {model!r},
    name='agent_{i}',
    description='Benchmark agent {i}.',
    instructions='You are benchmark agent {i}. Answer briefly and cite the tools you used.',
    model_settings={{'temperature': 0.{i}, 'max_tokens': 512}},
    metadata={{'synapse.stateless': {stateless}}},
)


@agent_{i}.tool_plain
def lookup_{i}(order_id: str, include_items: bool = False) -> dict[str, object]:
    """Look up an order by its id.

    Args:
        order_id: The order id.
        include_items: Whether to list the items.
    """
    return {{'id': order_id}}


@agent_{i}.tool
def note_{i}(ctx: RunContext[None], text: str, priority: int = 1) -> str:
    """Add a note to the conversation."""
    return text
'''


def write_project(root: Path, package: str, modules: int, agents: int, *, keyless: bool = False) -> None:
    """`modules` files of `agents` agents; with `keyless`, the first agent of each names openai:gpt-4o."""
    folder = root / package
    folder.mkdir(parents=True)
    (folder / '__init__.py').write_text('')
    for m in range(modules):
        parts = [MODULE.format(probe=PROBE)]
        for i in range(agents):
            model = 'openai:gpt-4o' if keyless and i == 0 else 'test'
            parts.append(AGENT.format(i=i, model=model, stateless=i % 2 == 0))
        (folder / f'agents_{m:02d}.py').write_text(''.join(parts))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def row(name: str, values_ms: list[float]) -> str:
    median, p95 = statistics.median(values_ms), percentile(values_ms, 0.95)
    return f'{name:<36} median {median:9.3f} ms   p95 {p95:9.3f} ms   (n={len(values_ms)})'


def timed(function: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = function()
    return (time.perf_counter() - started) * 1000, result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--modules', type=int, default=50)
    parser.add_argument('--agents', type=int, default=5, help='agents per module')
    parser.add_argument('--cold-runs', type=int, default=5)
    parser.add_argument('--warm-runs', type=int, default=300)
    parser.add_argument('--edit-runs', type=int, default=10)
    parser.add_argument('--json', help='also write the results here (see results.py)')
    args = parser.parse_args()
    os.environ.pop('OPENAI_API_KEY', None)

    from synapse_agents.discovery import Catalog, CatalogSnapshot
    from synapse_agents.discovery.keys import PLACEHOLDER_PREFIX

    workdir = Path(tempfile.mkdtemp(prefix='synapse-bench-discovery-'))
    (workdir / f'{PROBE}.py').write_text('count = 0\n')
    sys.path.insert(0, str(workdir))
    probe = importlib.import_module(PROBE)
    total = args.modules * args.agents

    def fresh(prefix: str, *, keyless: bool = False) -> tuple[str, Path]:
        package = f'{prefix}_{uuid.uuid4().hex[:8]}'
        write_project(workdir / package, package, args.modules, args.agents, keyless=keyless)
        return package, workdir / package

    def plain_import() -> float:
        package, root = fresh('plain')
        sys.path.insert(0, str(root))
        elapsed, _ = timed(
            lambda: [importlib.import_module(f'{package}.agents_{m:02d}') for m in range(args.modules)]
        )
        sys.path.remove(str(root))
        return elapsed

    def cold_scan(*, keyless: bool) -> tuple[float, Catalog, CatalogSnapshot, str]:
        package, root = fresh('cold', keyless=keyless)
        catalog = Catalog([package], root)
        elapsed, snapshot = timed(catalog.scan)
        assert isinstance(snapshot, CatalogSnapshot)
        if len(snapshot.agents) != total or snapshot.problems:
            raise SystemExit(
                f'expected {total} agents, no problems: got {len(snapshot.agents)}, {snapshot.problems[:1]}'
            )
        return elapsed, catalog, snapshot, package

    try:
        # Warm-up: pydantic-ai, the OpenAI SDK and discovery itself are imported once, as in a running server.
        write_project(workdir / 'warmup', 'warmup_pkg', 1, args.agents, keyless=True)
        Catalog(['warmup_pkg'], workdir / 'warmup').scan()

        plain: list[float] = []
        cold: list[float] = []
        keyless: list[float] = []
        for _ in range(args.cold_runs):  # interleaved, so drift affects all three alike
            plain.append(plain_import())
            cold.append(cold_scan(keyless=False)[0])
            elapsed, catalog, snapshot, package = cold_scan(keyless=True)
            keyless.append(elapsed)
        missing = sum(agent.missing_env == 'OPENAI_API_KEY' for agent in snapshot.agents)

        imported_before, rebuilds_before = probe.count, catalog.rebuilds
        warm: list[float] = []
        for _ in range(args.warm_runs):
            elapsed, again = timed(catalog.scan)
            warm.append(elapsed)
            assert again is snapshot
        imported_warm = probe.count - imported_before
        rebuilt_warm = catalog.rebuilds - rebuilds_before

        listing = [timed(lambda: catalog.scan().listing().model_dump(mode='json'))[0] for _ in range(50)]

        edit: list[float] = []
        target = catalog.project_root / package / 'agents_00.py'
        for n in range(args.edit_runs):
            target.write_text(target.read_text() + f'\n# edit {n}\n')
            before = probe.count
            edit.append(timed(catalog.scan)[0])
            assert probe.count - before == 1, 'an edit must re-import exactly the edited module'
    finally:
        sys.path.remove(str(workdir))
        shutil.rmtree(workdir, ignore_errors=True)
    assert not any(value.startswith(PLACEHOLDER_PREFIX) for value in os.environ.values())

    print(f'Discovery of {total} agents in {args.modules} modules')
    print(row('plain import, no Synapse', plain))
    print(row('cold scan (first import)', cold))
    print(row(f'cold scan, {missing} agents lack their key', keyless))
    print(row('warm scan (nothing changed)', warm))
    print(row('edit one module, scan', edit))
    print(row('warm scan + /api/agents payload', listing))
    print(f'cold scan / plain import (medians): {statistics.median(cold) / statistics.median(plain):.2f}x')
    print(f'cold scan / warm scan (medians): {statistics.median(cold) / statistics.median(warm):,.0f}x')
    print(f'warm scans imported {imported_warm} modules and rebuilt the catalog {rebuilt_warm} times')
    warm_median = statistics.median(warm)
    clean = imported_warm == 0 and rebuilt_warm == 0
    ok = warm_median <= WARM_LIMIT_MS and clean
    print(f'{"OK" if ok else "FAIL"}: warm median {warm_median:.3f} ms <= {WARM_LIMIT_MS:.0f} ms')
    group = 'discovery'
    scale = f'{total} agents in {args.modules} modules'
    write_json(
        args.json,
        [
            Result.of(group, 'plain import, no Synapse (floor)', plain, note=scale),
            Result.of(
                group,
                'cold scan',
                cold,
                note=f'{statistics.median(cold) / statistics.median(plain):.2f}x the plain import',
            ),
            Result.of(group, f'cold scan, {missing} agents lack their key', keyless),
            Result.of(
                group,
                'warm scan (nothing changed)',
                warm,
                target=f'p50 <= {WARM_LIMIT_MS:.0f} ms, imports nothing',
                passed=ok,
                note=f'imported {imported_warm} modules, rebuilt {rebuilt_warm} times',
            ),
            Result.of(group, 'edit one module, scan', edit),
            Result.of(group, 'warm scan + /api/agents payload', listing),
        ],
    )
    return 0 if ok else 1


if __name__ == '__main__':
    raise SystemExit(main())
