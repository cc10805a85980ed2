"""Agents that run themselves: the scheduler's tick at 10,000 standing agents, how soon a fired task
starts, and how many tasks a minute the workers get through.

1. Tick: `clock.tick(store, now=T)` on a store of 10,000 standing agents (every minute, hourly, daily
   and weekly schedules in four time zones, loaded in one `executemany`, `next_fire_at` from
   `Schedule.next_after`), on SQLite and a fresh PostgreSQL database. Interleaved, one of each per
   round: a quiet tick (none due), 10 due, 100 (1%) due; the due rows are made due again and their
   tasks deleted between rounds, so every measured tick does the same work. The floor: a quiet
   tick before the rows were loaded. Target (PostgreSQL): p50 at most 50 ms.
2. Fire → start: from `task_service(runtime).fire(event)` returning to the task's `started_at` (the
   claim), one firing at a time, on the in-process worker (a root with `maintenance=True`, as
   `synapse serve` runs it) and on one Celery worker process (Redis), on PostgreSQL, with a
   `FunctionModel` agent that answers at once (so the figures are the queue's own overhead).
3. Throughput: the workers paused, N tasks fired from 4 threads, the workers resumed: tasks per
   minute from the first start to the last finish, for the in-process worker, one Celery worker
   process and two (4 threads each), side by side.

    python bench/bench_tasks.py
    python bench/bench_tasks.py --standing 10000 --tick-runs 50 --firings 50 --tasks 500
    python bench/bench_tasks.py --no-celery     # the tick and the in-process worker only
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import anyio.to_thread
from celery import Celery
from rich.console import Console
from rich.table import Table
from sqlalchemy import delete, event, func, insert, select, text, update

from bench_python_api import postgres_database
from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import LoadedSettings, load_settings
from synapse_agents.store import Store, upgrade
from synapse_agents.store.ids import new_id
from synapse_agents.tasks import standing_store
from synapse_agents.tasks.clock import tick
from synapse_agents.tasks.events import Fired
from synapse_agents.tasks.schedule import Schedule
from synapse_agents.tasks.service import task_service
from synapse_agents.tasks.tables import FINAL, AgentTask, StandingAgent

ROOT = Path(__file__).resolve().parents[1]
CRONS = ('* * * * *', '{m} * * * *', '{m} {h} * * *', '{m} {h} * * {d}')
"""Every minute, hourly, daily, weekly (the minute, hour and day vary by row)."""
ZONES = ('UTC', 'Europe/Madrid', 'America/New_York', 'Asia/Tokyo')
CASES = (('quiet', 0), ('10 due', 10), ('100 due (1%)', 100))
FLOOR = 'quiet, no standing agents'
TARGET_MS = 50.0
QUEUE = 'synapse-bench'
THREADS = 4
AGENT_SOURCE = '''"""An agent that answers at once."""
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.models.function import FunctionModel


async def _stream(messages, info):
    yield 'done'


model = FunctionModel(lambda messages, info: ModelResponse([TextPart('done')]), stream_function=_stream)
quick_agent = Agent(model, name='quick_agent')
'''
# -- 1. the tick ------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _next(cron: str, zone: str, after: datetime) -> datetime:
    return Schedule.parse(cron, zone).next_after(after)


def seed(store: Store, count: int, now: datetime) -> list[str]:
    """`count` standing agents on schedules, none due at `now`; their ids, schedules mixed in order."""
    common: dict[str, Any] = dict(
        agent_key='bench.quick', instruction='Summarise.', events=[], debounce_seconds=0, enabled=True
    )
    rows: list[dict[str, Any]] = []
    for index in range(count):
        cron = CRONS[index % len(CRONS)].format(m=index % 60, h=index % 24, d=index % 7)
        zone = ZONES[(index // len(CRONS)) % len(ZONES)]
        schedule = dict(cron=cron, timezone=zone, next_fire_at=_next(cron, zone, now))
        rows.append(common | schedule | dict(id=new_id(), name=f'{index}', created_at=now, updated_at=now))
    with store.write() as session:
        session.connection().execute(insert(StandingAgent), rows)
    return [row['id'] for row in rows]


def make_due(store: Store, ids: list[str], now: datetime) -> None:
    """`ids` due at `now` (their slot a minute ago), and no task left from an earlier tick."""
    with store.write() as session:
        session.execute(delete(AgentTask))
        if ids:
            due = {'next_fire_at': now - timedelta(minutes=1), 'last_fired_at': None}
            session.execute(update(StandingAgent).where(StandingAgent.id.in_(ids)).values(**due))


def measure_tick(database_url: str, count: int, runs: int, warmup: int) -> dict[str, Any]:
    """ms per tick and SQL statements per tick, keyed by case; the seed time; the due query's plan."""
    store = Store.open(database_url, Path('/nonexistent'))
    upgrade(store.engine)
    statements = [0]
    event.listen(
        store.engine, 'before_cursor_execute', lambda *_: statements.__setitem__(0, statements[0] + 1)
    )
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    samples: dict[str, list[float]] = {}
    ran: dict[str, int] = {}

    def timed(name: str, due: int, keep: bool) -> None:
        before, started = statements[0], time.perf_counter()
        queued = tick(store, now=now)
        elapsed = (time.perf_counter() - started) * 1000
        if len(queued) != due:
            raise RuntimeError(f'the tick queued {len(queued)} tasks, {due} were due')
        if keep:
            samples.setdefault(name, []).append(elapsed)
            ran[name] = statements[0] - before

    try:
        for index in range(warmup + runs):
            timed(FLOOR, 0, index >= warmup)
        started = time.perf_counter()
        ids = seed(store, count, now)
        seeded = time.perf_counter() - started
        plan = ''
        if store.dialect == 'postgresql':  # the due query reads the index, not the 10,000 rows
            with store.read() as session:
                session.execute(text('ANALYZE standing_agents'))
                query = 'EXPLAIN SELECT id FROM standing_agents WHERE enabled AND next_fire_at <= :now'
                plan = next(line for (line,) in session.execute(text(query), {'now': now}) if 'Scan' in line)
        for index in range(warmup + runs):
            for name, due in CASES:
                make_due(store, ids[:due], now)
                timed(name, due, index >= warmup)
    finally:
        store.close()
    return {'samples': samples, 'statements': ran, 'seeded': seeded, 'plan': plan.strip(' ->')}


def show(console: Console, title: str, results: list[Result], ratio: str | None = None) -> None:
    """`results` as a table: p50, p95, the ratio of each p50 to the first row's, target, note."""
    table = Table(title=title)
    for column in ('figure', 'p50', 'p95', 'unit', *([ratio] if ratio else []), 'target', 'note'):
        table.add_column(column, justify='right' if column in ('p50', 'p95', ratio) else 'left')
    for result in results:
        mark = {None: '', True: ' [green]pass[/]', False: ' [red bold]MISS[/]'}[result.passed]
        p95 = '' if result.p95 is None else f'{result.p95:,.2f}'
        times = [f'{result.median / results[0].median:.1f}'] if ratio else []
        table.add_row(
            result.name, f'{result.median:,.2f}', p95, result.unit, *times, result.target + mark, result.note
        )
    console.print(table)


def report_tick(dialect: str, count: int, found: dict[str, Any], console: Console) -> list[Result]:
    samples: dict[str, list[float]] = found['samples']
    group = f'Scheduler tick ({dialect})'
    quiet = statistics.median(samples['quiet'])
    results: list[Result] = []
    for name, values in samples.items():
        due, sql = dict(CASES).get(name), found['statements'][name]
        target, passed = '', None
        if dialect == 'PostgreSQL' and name != FLOOR:
            target, passed = f'p50 <= {TARGET_MS:.0f} ms', statistics.median(values) <= TARGET_MS
        per_task = f', {(statistics.median(values) - quiet) / due:.2f} ms per due task' if due else ''
        note = f'{sql} SQL{per_task}'
        results.append(Result.of(group, f'tick, {name}', values, target=target, passed=passed, note=note))
    show(console, f'clock.tick with {count:,} standing agents — {dialect}', results, 'x floor')
    console.print(
        f'{count:,} standing agents loaded in {found["seeded"]:.2f} s.', found['plan'], highlight=False
    )
    return results


# -- 2 and 3. the workers ---------------------------------------------------------------------


def settings_for(folder: Path, **values: Any) -> LoadedSettings:
    """A root's settings: `values` (in a folder of no project), and no scheduler (nothing here is
    scheduled)."""
    return load_settings(values | {'scheduler': False}, cwd=folder, load_dotenv=False)


def worker_env(loaded: LoadedSettings) -> dict[str, str]:
    """The environment of a `synapse worker` on the same settings (none other of SYNAPSE_*)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith('SYNAPSE_')}
    for item in loaded.values:
        if item.source == 'cli':
            value = ','.join(item.value) if isinstance(item.value, list) else str(item.value)
            env[f'SYNAPSE_{item.name.upper()}'] = value
    return env | {'PYTHONPATH': str(ROOT / 'src')}


def standing_fire(runtime: SynapseRuntime, event_name: str) -> Callable[[], Fired]:
    """A standing agent on the quick agent listening to `event_name`; a call that fires it."""
    assert runtime.catalog is not None
    slug = runtime.catalog.scan().agents[0].slug
    data = standing_store.StandingInput(
        name=event_name, agent=slug, instruction='Say done.', events=[event_name]
    )
    standing_store.create(runtime.store, data)
    service = task_service(runtime)
    return lambda: service.fire(event_name)


def wait_final(store: Store, ids: list[str], timeout: float = 120.0) -> list[AgentTask]:
    """The tasks once every one has succeeded; a failed one is an error. One task is polled every
    5 ms, a batch every 100 ms (a light poll: the in-process worker shares this process)."""
    deadline, interval = time.monotonic() + timeout, 0.005 if len(ids) == 1 else 0.1
    finished = select(func.count()).where(AgentTask.id.in_(ids), AgentTask.status.in_(FINAL))
    while True:
        with store.read() as session:
            done = session.scalar(finished)
        if done == len(ids):
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f'{done} of {len(ids)} tasks finished within {timeout:.0f} s')
        time.sleep(interval)
    with store.read() as session:
        rows = list(session.scalars(select(AgentTask).where(AgentTask.id.in_(ids))))
    failed = [row for row in rows if row.status != 'succeeded']
    if failed:
        raise RuntimeError(f'{len(failed)} tasks did not succeed: {failed[0].status} {failed[0].error}')
    return rows


def measure_latency(
    fire: Callable[[], Fired], store: Store, firings: int, warmup: int
) -> dict[str, list[float]]:
    """One firing at a time: the `fire` call, fire returned → started_at, started → finished (ms)."""
    found: dict[str, list[float]] = {}
    for index in range(warmup + firings):
        started = time.perf_counter()
        fired = fire()
        returned, call = datetime.now(UTC), (time.perf_counter() - started) * 1000
        (row,) = wait_final(store, fired.queued)
        assert row.started_at is not None and row.finished_at is not None
        for figure, ms in (
            ('fire call', call),
            ('fire returned → started', (row.started_at - returned).total_seconds() * 1000),
            ('started → finished', (row.finished_at - row.started_at).total_seconds() * 1000),
        ):
            found.setdefault(figure, []).extend([ms] if index >= warmup else [])
    return found


def measure_throughput(
    fire: Callable[[], Fired], store: Store, tasks: int, pause: Callable[[], None], resume: Callable[[], None]
) -> dict[str, float]:
    """A warm-up batch; then the workers paused, `tasks` fired from THREADS threads, the workers
    resumed: tasks a minute from the first start to the last finish (a backlog drained)."""
    with ThreadPoolExecutor(THREADS) as pool:
        wait_final(
            store, [i for fired in pool.map(lambda _: fire(), range(4 * THREADS)) for i in fired.queued]
        )
        pause()
        started = time.perf_counter()
        ids = [i for fired in pool.map(lambda _: fire(), range(tasks)) for i in fired.queued]
        fired_s = time.perf_counter() - started
    resume()
    rows = wait_final(store, ids)
    first = min(row.started_at for row in rows if row.started_at is not None)
    wall = (max(row.finished_at for row in rows if row.finished_at is not None) - first).total_seconds()
    runs = [
        (r.finished_at - r.started_at).total_seconds() * 1000 for r in rows if r.finished_at and r.started_at
    ]
    return {
        'tasks': len(ids),
        'per_minute': len(ids) / wall * 60,
        'wall_s': wall,
        'fired_per_s': tasks / fired_s,
        'run_p50': statistics.median(runs),
        'run_p95': percentile(runs, 0.95),
        'workers': len({row.worker for row in rows}),
    }


async def in_process(loaded: LoadedSettings, args: argparse.Namespace) -> dict[str, Any]:
    """Latency and throughput with the in-process worker of a root doing the background work."""
    runtime = SynapseRuntime.open(loaded, maintenance=True)
    try:
        async with runtime.running():
            fire = await anyio.to_thread.run_sync(standing_fire, runtime, 'bench.in-process')
            worker = task_service(runtime).worker
            assert worker is not None, 'the root runs no in-process worker'

            def pause() -> None:  # no free slot: it claims nothing
                worker.concurrency = 0

            def resume() -> None:
                worker.concurrency = args.concurrency
                worker.wake()

            store = runtime.store
            latency = await anyio.to_thread.run_sync(measure_latency, fire, store, args.firings, args.warmup)
            drained = await anyio.to_thread.run_sync(
                measure_throughput, fire, store, args.tasks, pause, resume
            )
    finally:
        runtime.close()
    return {'latency': latency, 'throughput': drained}


@contextmanager
def celery_workers(count: int, broker: str, folder: Path, env: dict[str, str]) -> Iterator[Celery]:
    """`count` `synapse worker` processes on QUEUE, each answering a ping; on exit SIGTERM (a warm
    shutdown), SIGKILL after 20 s. Yields a control app on the broker."""
    command = [str(Path(sys.executable).with_name('synapse')), 'worker', '--concurrency', str(THREADS)]
    processes: list[subprocess.Popen[bytes]] = []
    logs = [folder / f'worker-{index}.log' for index in range(count)]
    control = Celery('synapse-bench', broker=broker, set_as_current=False)
    try:
        for log in logs:
            with log.open('wb') as out:
                options: dict[str, Any] = {'stdout': out, 'stderr': subprocess.STDOUT}
                processes.append(
                    subprocess.Popen(command, cwd=folder, env=env, start_new_session=True, **options)
                )
        deadline = time.monotonic() + 60
        while len(control.control.ping(timeout=0.5)) < count:
            dead = [process for process in processes if process.poll() is not None]
            if dead or time.monotonic() > deadline:
                tail = logs[processes.index(dead[0]) if dead else 0].read_text()[-2000:]
                raise RuntimeError(f'a Celery worker did not start:\n{tail}')
        yield control
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        control.close()


def on_celery(loaded: LoadedSettings, folder: Path, args: argparse.Namespace) -> dict[Any, Any]:
    """Latency with one Celery worker process; throughput with one and with two."""
    import redis

    broker = redis.Redis.from_url(args.redis)
    broker.flushdb()
    env = worker_env(loaded)
    runtime = SynapseRuntime.open(loaded)
    found: dict[Any, Any] = {}
    try:
        fire = standing_fire(runtime, 'bench.celery')
        for count in (1, 2):
            with celery_workers(count, args.redis, folder, env) as control:

                def pause(control: Celery = control, count: int = count) -> None:
                    if len(control.control.cancel_consumer(QUEUE, reply=True, timeout=2)) < count:
                        raise RuntimeError('a Celery worker did not stop consuming')

                def resume(control: Celery = control) -> None:
                    control.control.add_consumer(QUEUE, reply=True, timeout=2)

                if count == 1:
                    found['latency'] = measure_latency(fire, runtime.store, args.firings, args.warmup)
                found[count] = measure_throughput(fire, runtime.store, args.tasks, pause, resume)
    finally:
        runtime.close()
        broker.flushdb()
        broker.close()
    return found


def report_workers(
    local: dict[str, Any], celery: dict[Any, Any] | None, args: argparse.Namespace, console: Console
) -> list[Result]:
    group, latencies, throughputs = 'Agent tasks (PostgreSQL)', [], []
    for way, latency in [('in-process', local['latency'])] + (
        [('Celery', celery['latency'])] if celery else []
    ):
        latencies += [Result.of(group, f'{way}: {figure}', values) for figure, values in latency.items()]
    show(console, f'Fire → start, {args.firings} firings one at a time — PostgreSQL', latencies)
    rows = [(f'in-process, {args.concurrency} at once', local['throughput'])]
    rows += [(f'Celery, {n} x {THREADS} threads', celery[n]) for n in (1, 2)] if celery else []
    for way, found in rows:
        note = (
            f'{found["wall_s"]:.1f} s; a run {found["run_p50"]:.0f} ms p50, {found["run_p95"]:.0f} ms p95; '
            f'{found["workers"]} worker(s); queued at {found["fired_per_s"]:.0f}/s'
        )
        figure = f'throughput, {way}'
        throughputs.append(
            Result(group, figure, found['per_minute'], None, 'tasks/min', found['tasks'], note=note)
        )
    show(console, f'Throughput: {args.tasks} queued tasks drained — PostgreSQL', throughputs, 'x in-proc')
    if celery:
        console.print(f'Celery: `synapse worker --concurrency {THREADS}` processes, broker {args.redis}.')
    return latencies + throughputs


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--standing', type=int, default=10_000, help='standing agents in the tick store')
    parser.add_argument('--tick-runs', type=int, default=20)
    parser.add_argument('--firings', type=int, default=30)
    parser.add_argument('--tasks', type=int, default=200)
    parser.add_argument('--warmup', type=int, default=3)
    parser.add_argument('--concurrency', type=int, default=THREADS, help='of the in-process worker')
    parser.add_argument('--no-celery', action='store_true')
    parser.add_argument('--postgres', default='postgresql://postgres@127.0.0.1:5432/postgres')
    parser.add_argument('--redis', default='redis://127.0.0.1:6379/12', help='flushed before and after')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console(width=None if sys.stdout.isatty() else 140)
    console.print(f'Load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores at the start.')
    results: list[Result] = []
    folder = Path(tempfile.mkdtemp(prefix='synapse-bench-tasks-'))
    try:
        found = measure_tick(f'sqlite:///{folder / "tick.db"}', args.standing, args.tick_runs, args.warmup)
        results += report_tick('SQLite', args.standing, found, console)
        with postgres_database(args.postgres) as postgres:
            if postgres is None:
                return
            found = measure_tick(postgres, args.standing, args.tick_runs, args.warmup)
            results += report_tick('PostgreSQL', args.standing, found, console)
        agent_file = folder / 'bench_quick_agent.py'
        agent_file.write_text(AGENT_SOURCE)
        with postgres_database(args.postgres) as postgres:
            assert postgres is not None
            common = {'database_url': postgres, 'home': str(folder / 'home'), 'agents': [str(agent_file)]}
            local = await in_process(settings_for(folder, **common, task_concurrency=args.concurrency), args)
            celery = None
            if not args.no_celery:
                queued = settings_for(folder, **common, queue_url=args.redis, queue_name=QUEUE)
                celery = on_celery(queued, folder, args)
        results += report_workers(local, celery, args, console)
        console.print(f'Load average {os.getloadavg()[0]:.2f} at the end.')
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        write_json(args.json, results)


if __name__ == '__main__':
    asyncio.run(main())
