"""Fill a store with a large history, fast: 100,000 conversations, 1,000,000 messages, 500,000 tool rows.

Each conversation has 5 turns (a user message and an answer each: 10 messages) and 5 tool calls,
over 8 agents and 12 tools, spread over the last 90 days; about 10% have an error. Answers carry
what Synapse stores for a real turn (reasoning and text parts, tool references, usage, model
metadata, `model_messages`), message text is drawn from a vocabulary, and one message in a thousand
contains the rare word "zanzibar" (for a selective search). One extra conversation, titled "replay
benchmark", has 60 messages and 480 tool calls (for the replay bench). Ids are UUIDv7 of each row's
own time, as Synapse writes them.

Fast because it loads the way databases like to be loaded, after `synapse db upgrade`'s schema:

- SQLite: the secondary indexes and the search triggers are dropped, the rows go in through the
  driver's `executemany` in one transaction, then the indexes are rebuilt and the FTS5 tables filled
  with one `rebuild` each (instead of a trigger call per row);
- PostgreSQL: the secondary indexes (trigram ones included) are dropped, the rows go in with
  `COPY`, then the indexes are recreated from their own definitions;

then `ANALYZE`. A store that already holds this seed (same version, same size) is left as it is.

    python bench/seed_history.py --url sqlite:////tmp/synapse-bench-history.db
    python bench/seed_history.py --url postgresql://postgres@127.0.0.1:5432/synapse_bench
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_core import to_json
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from synapse_agents.store import Store, upgrade

AGENTS = [f'app.agents.agent_{i}' for i in range(8)]
TOOLS = [f'tool_{i}' for i in range(12)]
_TEXT = (
    'order refund shipping invoice account password delivery parcel customer ticket billing '
    'plan seats upgrade cancel status tracking warehouse address payment card receipt discount '
    'coupon return label support agent model token cost answer question reply thanks hello '
    'please today tomorrow week'
)
WORDS = _TEXT.split(' ')
REPLAY_TITLE = 'replay benchmark'
SEED_MARK = 'bench-seed/2'
"""`agent_name` of the replay conversation: which version of this script filled the store."""

CONVERSATION_COLUMNS = (
    'id', 'agent_key', 'agent_name', 'title', 'origin', 'has_error', 'message_count', 'tool_count',
    'input_tokens', 'output_tokens', 'cost', 'created_at', 'updated_at',
)  # fmt: skip
MESSAGE_COLUMNS = (
    'id', 'conversation_id', 'run_id', 'role', 'status', 'content', 'attachments', 'model_messages',
    'parts', 'usage', 'input_tokens', 'output_tokens', 'cost', 'duration_ms', 'meta', 'details',
    'created_at',
)  # fmt: skip
TOOL_COLUMNS = (
    'id', 'conversation_id', 'message_id', 'run_id', 'tool_call_id', 'kind', 'name', 'arguments',
    'result', 'status', 'duration_ms', 'started_at', 'finished_at',
)  # fmt: skip
_TIMES = {'created_at', 'updated_at', 'started_at', 'finished_at'}


@dataclass
class Rows:
    """Rows of the three tables, as tuples in the `*_COLUMNS` order (JSON as text, UTC datetimes)."""

    conversations: list[tuple[Any, ...]] = field(default_factory=list)
    messages: list[tuple[Any, ...]] = field(default_factory=list)
    tools: list[tuple[Any, ...]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.conversations)


class _Generator:
    """Deterministic rows (seeded); UUIDv7 ids of each row's own time."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def id_at(self, moment: datetime) -> str:
        ms = int(moment.timestamp() * 1000)
        bits = self.rng.getrandbits(74)
        value = (ms << 80) | (0x7 << 76) | ((bits >> 62) << 64) | (0b10 << 62) | (bits & ((1 << 62) - 1))
        h = f'{value:032x}'
        return f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'

    def sentence(self, words: int) -> str:
        text_ = ' '.join(self.rng.choices(WORDS, k=words))
        if self.rng.random() < 0.001:
            text_ += ' zanzibar'
        return text_.capitalize() + '.'

    def conversation(
        self,
        rows: Rows,
        created: datetime,
        *,
        turns: int = 5,
        tools_per_turn: int = 1,
        title: str | None = None,
        agent_name: str | None = None,
    ) -> None:
        rng = self.rng
        conversation_id = self.id_at(created)
        agent = rng.choice(AGENTS)
        has_error = rng.random() < 0.1
        first = title or self.sentence(8)
        input_total = output_total = 0
        moment = created
        for turn in range(turns):
            run_id = self.id_at(moment)
            user_text = first if turn == 0 else self.sentence(rng.randint(6, 20))
            rows.messages.append(
                (self.id_at(moment), conversation_id, run_id, 'user', 'complete', user_text, '[]', None,
                 None, None, None, None, None, None, '{}', '{}', moment)
            )  # fmt: skip
            answered = moment + timedelta(seconds=2)
            assistant_id = self.id_at(answered)
            references: list[dict[str, str]] = []
            for call in range(tools_per_turn):
                call_id = f'call_{turn}_{call}_{rng.getrandbits(30):x}'
                references.append({'type': 'tool', 'tool_call_id': call_id})
                arguments = to_json({'query': self.sentence(3)}).decode()
                result = to_json({'status': 'ok', 'items': rng.randrange(10)}).decode()
                rows.tools.append(
                    (self.id_at(moment), conversation_id, assistant_id, run_id, call_id, 'function',
                     rng.choice(TOOLS), arguments, result, 'success', rng.randrange(5, 300), moment,
                     moment + timedelta(milliseconds=50))
                )  # fmt: skip
            answer = self.sentence(rng.randint(20, 60))
            tokens_in, tokens_out = rng.randrange(200, 2000), rng.randrange(20, 400)
            input_total += tokens_in
            output_total += tokens_out
            parts = [
                {'type': 'reasoning', 'text': self.sentence(12)},
                *references,
                {'type': 'text', 'text': answer},
            ]
            usage = {
                'input_tokens': tokens_in,
                'output_tokens': tokens_out,
                'requests': 2,
                'tool_calls': tools_per_turn,
            }
            meta = {'model': 'gpt-5.6-sol', 'provider': 'openai', 'finish_reason': 'stop', 'llm_calls': 2}
            model_messages = [{'kind': 'response', 'parts': [{'part_kind': 'text', 'content': answer}]}]
            rows.messages.append(
                (assistant_id, conversation_id, run_id, 'assistant', 'complete', answer, '[]',
                 to_json(model_messages).decode(), to_json(parts).decode(), to_json(usage).decode(),
                 tokens_in, tokens_out, None, 1800, to_json(meta).decode(), '{}', answered)
            )  # fmt: skip
            moment += timedelta(minutes=2)
        rows.conversations.append(
            (conversation_id, agent, agent_name or agent.rsplit('.', 1)[-1], first[:100], 'playground',
             has_error, 2 * turns, turns * tools_per_turn, input_total, output_total,
             round(input_total * 2.5e-6 + output_total * 1e-5, 6), created, moment)
        )  # fmt: skip


def generate(conversations: int, *, seed: int = 7, batch: int = 5000) -> Iterator[Rows]:
    """The seed's rows in batches of `batch` conversations; the replay conversation comes last."""
    generator = _Generator(seed)
    now = datetime.now(UTC).replace(microsecond=0)
    start = now - timedelta(days=90)
    rows = Rows()
    for index in range(conversations):
        generator.conversation(rows, start + timedelta(seconds=index * 90 * 86400 / max(conversations, 1)))
        if len(rows) >= batch:
            yield rows
            rows = Rows()
    replay_start = now - timedelta(minutes=61)  # its last turn ends now
    generator.conversation(
        rows, replay_start, turns=30, tools_per_turn=16, title=REPLAY_TITLE, agent_name=SEED_MARK
    )
    yield rows


# -- SQLite --------------------------------------------------------------------------------------


def _sqlite_value(column: str, value: Any) -> Any:
    if column in _TIMES and value is not None:
        return value.astimezone(UTC).replace(tzinfo=None).isoformat(sep=' ', timespec='microseconds')
    if column == 'has_error':
        return int(value)
    return value


def _sqlite_rows(columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    converted = [i for i, name in enumerate(columns) if name in _TIMES or name == 'has_error']
    out = []
    for row in rows:
        values = list(row)
        for i in converted:
            values[i] = _sqlite_value(columns[i], values[i])
        out.append(tuple(values))
    return out


def _seed_sqlite(store: Store, conversations: int) -> None:
    raw = store.engine.raw_connection()
    try:
        db = raw.driver_connection
        assert db is not None
        db.execute('PRAGMA synchronous=OFF')
        db.execute('PRAGMA cache_size=-262144')  # 256 MB
        schema = db.execute(
            'SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND '
            "((type = 'index' AND tbl_name IN ('conversations', 'messages', 'tool_invocations')) "
            "OR (type = 'trigger' AND name LIKE '%fts%'))"
        ).fetchall()
        db.execute('BEGIN IMMEDIATE')
        for kind, name, _sql in schema:
            db.execute(f'DROP {kind.upper()} {name}')
        sql = {
            name: f'INSERT INTO {table} ({", ".join(cols)}) VALUES ({", ".join("?" * len(cols))})'
            for name, table, cols in (
                ('conversations', 'conversations', CONVERSATION_COLUMNS),
                ('messages', 'messages', MESSAGE_COLUMNS),
                ('tools', 'tool_invocations', TOOL_COLUMNS),
            )
        }
        for rows in generate(conversations):
            db.executemany(sql['conversations'], _sqlite_rows(CONVERSATION_COLUMNS, rows.conversations))
            db.executemany(sql['messages'], _sqlite_rows(MESSAGE_COLUMNS, rows.messages))
            db.executemany(sql['tools'], _sqlite_rows(TOOL_COLUMNS, rows.tools))
        for _kind, _name, create in schema:
            db.execute(create)
        db.execute("INSERT INTO conversations_fts(conversations_fts) VALUES ('rebuild')")
        db.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
        db.execute('COMMIT')
        db.execute('PRAGMA analysis_limit=2000')
        db.execute('ANALYZE')
        db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    finally:
        raw.close()


# -- PostgreSQL ----------------------------------------------------------------------------------


def _seed_postgresql(store: Store, conversations: int) -> None:
    raw = store.engine.raw_connection()
    try:
        db: Any = raw.driver_connection
        db.autocommit = False
        with db.cursor() as cursor:
            cursor.execute(
                'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND '
                "tablename IN ('conversations', 'messages', 'tool_invocations') "
                "AND indexname NOT LIKE '%pkey'"
            )
            indexes = cursor.fetchall()
            for name, _definition in indexes:
                cursor.execute(f'DROP INDEX {name}')
            for rows in generate(conversations):
                for table, columns, data in (
                    ('conversations', CONVERSATION_COLUMNS, rows.conversations),
                    ('messages', MESSAGE_COLUMNS, rows.messages),
                    ('tool_invocations', TOOL_COLUMNS, rows.tools),
                ):
                    with cursor.copy(f'COPY {table} ({", ".join(columns)}) FROM STDIN') as copy:
                        for row in data:
                            copy.write_row(row)
            db.commit()
            cursor.execute("SET maintenance_work_mem = '512MB'")
            for _name, definition in indexes:
                cursor.execute(definition)
            db.commit()
        db.autocommit = True
        with db.cursor() as cursor:
            cursor.execute('VACUUM ANALYZE conversations, messages, tool_invocations')
    finally:
        raw.close()


# -- entry points --------------------------------------------------------------------------------


def is_seeded(store: Store, conversations: int) -> bool:
    """Whether the store holds this script's seed of `conversations` conversations."""
    with store.engine.connect() as connection:
        marked = connection.execute(
            text('SELECT count(*) FROM conversations WHERE agent_name = :mark'), {'mark': SEED_MARK}
        ).scalar()
        total = connection.execute(text('SELECT count(*) FROM conversations')).scalar()
    return bool(marked) and total == conversations + 1


def open_seeded(url: str, conversations: int, *, log: Any = print) -> tuple[Store, float | None]:
    """A migrated store at `url` holding the seed (seeded now if needed: then also the seconds it
    took, the database created afresh and migrated included)."""
    if url.startswith('postgresql://'):
        url = 'postgresql+psycopg://' + url.removeprefix('postgresql://')
    ensure_database(url)
    store = Store.open(url, Path('/tmp/synapse-bench-attachments'))
    upgrade(store.engine)
    if is_seeded(store, conversations):
        return store, None
    started = time.perf_counter()
    store.close()
    _recreate(url)
    store = Store.open(url, Path('/tmp/synapse-bench-attachments'))
    upgrade(store.engine)
    if store.dialect == 'postgresql':
        _seed_postgresql(store, conversations)
    else:
        _seed_sqlite(store, conversations)
    elapsed = time.perf_counter() - started
    log(f'seeded {store.dialect} with {conversations:,} conversations in {elapsed:.0f} s: {store.counts()}')
    return store, elapsed


def _recreate(url: str) -> None:
    """An empty database at `url`: the SQLite file removed, the PostgreSQL database dropped."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    target = make_url(url)
    if target.get_backend_name() == 'sqlite':
        for suffix in ('', '-wal', '-shm'):
            Path(f'{target.database}{suffix}').unlink(missing_ok=True)
        return
    admin = create_engine(target.set(database='postgres'), isolation_level='AUTOCOMMIT')
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{target.database}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{target.database}"'))
    admin.dispose()


def ensure_database(url: str) -> None:
    """Create the PostgreSQL database of `url` when it does not exist (SQLite creates its file)."""
    if not url.startswith('postgresql'):
        return
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    target = make_url(
        url.replace('postgresql://', 'postgresql+psycopg://', 1) if '+' not in url.split('://')[0] else url
    )
    admin = create_engine(target.set(database='postgres'), isolation_level='AUTOCOMMIT')
    with admin.connect() as connection:
        exists = connection.execute(
            text('SELECT 1 FROM pg_database WHERE datname = :name'), {'name': target.database}
        ).scalar()
        if not exists:
            connection.execute(text(f'CREATE DATABASE "{target.database}"'))
    admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--url', required=True, help='SQLAlchemy URL of the store to fill')
    parser.add_argument('--conversations', type=int, default=100_000)
    args = parser.parse_args()
    store, _elapsed = open_seeded(args.url, args.conversations)
    print(store.counts())
    store.close()


if __name__ == '__main__':
    main()
