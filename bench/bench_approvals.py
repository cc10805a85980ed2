"""What tool calls that wait for a person add to a turn: the read of a conversation's waiting calls.

Every continued turn first asks the store whether any of the conversation's tool calls waits for a
decision (`conversations.decisions.awaiting_calls`), so that a new message is refused while one does. The
read is timed beside its floor, the conversation's row read by primary key (`conversations.get`),
on conversations holding 0, 1,000 and 10,000 tool calls (none waiting), on each store. Target: the
read stays within 2 ms at p50 at 10,000 calls, i.e. it does not grow with the conversation.

    python bench/bench_approvals.py                     # SQLite, and PostgreSQL when reachable
    python bench/bench_approvals.py --runs 500 --postgres postgresql://postgres@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.table import Table
from sqlalchemy import create_engine, insert, text

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Result, write_json
from synapse_agents.conversations.decisions import awaiting_calls
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.tables import Conversation, ToolInvocation
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.store.migrate import upgrade
from synapse_agents.store.schema import utcnow

SIZES = (0, 1_000, 10_000)
DATABASE = 'synapse_bench_approvals'


def timed(function: Callable[[], object], runs: int, warmup: int) -> list[float]:
    for _ in range(warmup):
        function()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return times


def seed(store: Store, size: int) -> str:
    """A conversation holding `size` finished tool calls."""
    conversation_id = new_id()
    with store.write() as session:
        session.execute(
            insert(Conversation),
            [{'id': conversation_id, 'agent_key': 'bench', 'agent_name': 'bench', 'title': 'bench'}],
        )
        rows = [
            {
                'id': new_id(),
                'conversation_id': conversation_id,
                'message_id': new_id(),
                'run_id': new_id(),
                'tool_call_id': f'call_{index}',
                'kind': 'function',
                'name': 'lookup',
                'arguments': {'n': index},
                'status': 'success',
                'started_at': utcnow(),
            }
            for index in range(size)
        ]
        for start in range(0, len(rows), 1000):
            session.execute(insert(ToolInvocation), rows[start : start + 1000])
    return conversation_id


def measure(label: str, url: str, runs: int, warmup: int) -> list[Result]:
    store = Store.open(url, Path(tempfile.mkdtemp()))
    upgrade(store.engine)
    results: list[Result] = []

    def conversation_row(conversation_id: str) -> object:
        return ConversationRepository(store).get(conversation_id)

    try:
        for size in SIZES:
            conversation_id = seed(store, size)
            floor = timed(partial(conversation_row, conversation_id), runs, warmup)
            read = timed(partial(awaiting_calls, store, conversation_id), runs, warmup)
            group = f'{label}, {size:,} tool calls'
            results.append(Result.of(group, 'conversation row by id (floor)', floor))
            target = 'p50 <= 2 ms' if size == SIZES[-1] else ''
            result = Result.of(group, 'waiting calls read', read, target=target)
            if target:
                result.passed = result.median <= 2
            results.append(result)
    finally:
        store.close()
    return results


def postgres_url(base: str) -> str | None:
    """A fresh database for the run on the server at `base` (None when it cannot be reached)."""
    try:
        admin = create_engine(
            base.replace('postgresql://', 'postgresql+psycopg://', 1), isolation_level='AUTOCOMMIT'
        )
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS {DATABASE}'))
            connection.execute(text(f'CREATE DATABASE {DATABASE}'))
        admin.dispose()
    except Exception as exc:
        print(f'PostgreSQL skipped: {type(exc).__name__}: {exc}', file=sys.stderr)
        return None
    return base.rsplit('/', 1)[0].replace('postgresql://', 'postgresql+psycopg://', 1) + f'/{DATABASE}'


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--runs', type=int, default=300)
    parser.add_argument('--warmup', type=int, default=30)
    parser.add_argument('--postgres', default='postgresql://postgres@127.0.0.1:5432/postgres')
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    results = measure('SQLite', f'sqlite:///{tempfile.mkdtemp()}/bench.db', args.runs, args.warmup)
    url = postgres_url(args.postgres)
    if url is not None:
        results += measure('PostgreSQL', url, args.runs, args.warmup)
    table = Table('Store and size', 'Read', 'p50 ms', 'p95 ms', 'Target')
    for result in results:
        verdict = '' if result.passed is None else ('pass' if result.passed else 'MISS')
        table.add_row(
            result.group,
            result.name,
            f'{result.median:.3f}',
            f'{result.p95 or 0:.3f}',
            f'{result.target} {verdict}',
        )
    Console().print(table)
    write_json(args.json, results)


if __name__ == '__main__':
    main()
