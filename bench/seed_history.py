"""Fill a store with a large history: 100,000 conversations, 1,000,000 messages, 500,000 tool rows.

Each conversation has 5 turns (a user message and an answer each: 10 messages) and 5 tool calls,
over 8 agents and 12 tools; about 10% have an error. Message text is drawn from a vocabulary, and
one message in a thousand contains the rare word "zanzibar" (for a selective search). One extra
conversation, titled "replay benchmark", has 60 messages and 480 tool calls (for the replay bench).

    python bench/seed_history.py --url sqlite:////tmp/history.db
    python bench/seed_history.py --url postgresql://postgres@127.0.0.1:5432/bench --conversations 100000

Rows go in through SQLAlchemy Core in large batches; counters are written consistent with the rows.
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from synapse_agents.store import Conversation, Message, Store, ToolInvocation, upgrade
from synapse_agents.store.ids import new_id

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


def sentence(rng: random.Random, words: int) -> str:
    text = ' '.join(rng.choice(WORDS) for _ in range(words))
    if rng.random() < 0.001:
        text += ' zanzibar'
    return text.capitalize() + '.'


def seed(store: Store, conversations: int, *, seed_value: int = 7, batch: int = 2000) -> dict[str, int]:
    rng = random.Random(seed_value)
    start = datetime.now(UTC) - timedelta(days=90)
    counts = {'conversations': 0, 'messages': 0, 'tool_invocations': 0}
    conv_rows: list[dict[str, Any]] = []
    msg_rows: list[dict[str, Any]] = []
    tool_rows: list[dict[str, Any]] = []

    def flush() -> None:
        with store.write() as session:
            if conv_rows:
                session.execute(insert(Conversation), conv_rows)
            if msg_rows:
                session.execute(insert(Message), msg_rows)
            if tool_rows:
                session.execute(insert(ToolInvocation), tool_rows)
        counts['conversations'] += len(conv_rows)
        counts['messages'] += len(msg_rows)
        counts['tool_invocations'] += len(tool_rows)
        conv_rows.clear()
        msg_rows.clear()
        tool_rows.clear()

    for index in range(conversations):
        created = start + timedelta(seconds=index * 90 * 86400 / max(conversations, 1))
        _conversation(rng, created, conv_rows, msg_rows, tool_rows, turns=5, tools_per_turn=1)
        if len(conv_rows) >= batch:
            flush()
    _conversation(
        rng,
        datetime.now(UTC),
        conv_rows,
        msg_rows,
        tool_rows,
        turns=30,
        tools_per_turn=16,
        title=REPLAY_TITLE,
    )
    flush()
    return counts


def _conversation(
    rng: random.Random,
    created: datetime,
    conv_rows: list[dict[str, Any]],
    msg_rows: list[dict[str, Any]],
    tool_rows: list[dict[str, Any]],
    *,
    turns: int,
    tools_per_turn: int,
    title: str | None = None,
) -> None:
    conversation_id = new_id()
    agent = rng.choice(AGENTS)
    has_error = rng.random() < 0.1
    first = title or sentence(rng, 8)
    input_tokens = output_tokens = 0
    moment = created
    for turn in range(turns):
        run_id = new_id()
        user_text = first if turn == 0 else sentence(rng, rng.randint(6, 20))
        msg_rows.append(_message(conversation_id, run_id, 'user', user_text, moment))
        assistant_id = new_id()
        for call in range(tools_per_turn):
            tool_rows.append(
                {
                    'id': new_id(),
                    'conversation_id': conversation_id,
                    'message_id': assistant_id,
                    'run_id': run_id,
                    'tool_call_id': f'call_{turn}_{call}_{rng.randrange(1 << 30):x}',
                    'kind': 'function',
                    'name': rng.choice(TOOLS),
                    'arguments': {'query': sentence(rng, 3)},
                    'result': {'status': 'ok', 'items': rng.randrange(10)},
                    'status': 'success',
                    'provider_status': None,
                    'error': None,
                    'duration_ms': rng.randrange(5, 300),
                    'started_at': moment,
                    'finished_at': moment + timedelta(milliseconds=50),
                }
            )
        answer = sentence(rng, rng.randint(20, 60))
        tokens_in, tokens_out = rng.randrange(200, 2000), rng.randrange(20, 400)
        input_tokens += tokens_in
        output_tokens += tokens_out
        parts: list[dict[str, Any]] = [{'type': 'reasoning', 'text': sentence(rng, 12)}]
        parts += [
            {'type': 'tool', 'tool_call_id': row['tool_call_id']} for row in tool_rows[-tools_per_turn:]
        ]
        parts.append({'type': 'text', 'text': answer})
        row = _message(conversation_id, run_id, 'assistant', answer, moment + timedelta(seconds=2))
        row.update(
            id=assistant_id,
            parts=parts,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            duration_ms=1800,
            usage={
                'input_tokens': tokens_in,
                'output_tokens': tokens_out,
                'requests': 2,
                'tool_calls': tools_per_turn,
            },
            meta={'model': 'gpt-5.6-sol', 'provider': 'openai', 'finish_reason': 'stop'},
            model_messages=[{'kind': 'response', 'parts': [{'part_kind': 'text', 'content': answer}]}],
        )
        msg_rows.append(row)
        moment += timedelta(minutes=2)
    conv_rows.append(
        {
            'id': conversation_id,
            'agent_key': agent,
            'agent_name': agent.rsplit('.', 1)[-1],
            'title': first[:100],
            'origin': 'playground',
            'has_error': has_error,
            'message_count': 2 * turns,
            'tool_count': turns * tools_per_turn,
            'input_tokens': input_tokens,
            'output_tokens': output_tokens,
            'cost': round(input_tokens * 2.5e-6 + output_tokens * 1e-5, 6),
            'created_at': created,
            'updated_at': moment,
            'tenant_type': None,
            'tenant_id': None,
            'actor_type': None,
            'actor_id': None,
            'subject_type': None,
            'subject_id': None,
        }
    )


def _message(conversation_id: str, run_id: str, role: str, content: str, at: datetime) -> dict[str, Any]:
    return {
        'id': new_id(),
        'conversation_id': conversation_id,
        'run_id': run_id,
        'role': role,
        'status': 'complete',
        'content': content,
        'attachments': [],
        'model_messages': None,
        'parts': None,
        'usage': None,
        'input_tokens': None,
        'output_tokens': None,
        'cost': None,
        'duration_ms': None,
        'meta': {},
        'details': {},
        'created_at': at,
    }


def open_seeded(url: str, conversations: int) -> Store:
    """A migrated store at `url`, seeded unless it already holds the replay conversation."""
    if url.startswith('postgresql://'):
        url = 'postgresql+psycopg://' + url.removeprefix('postgresql://')
    store = Store.open(url, Path('/tmp/synapse-bench-attachments'))
    upgrade(store.engine)
    if store.counts()['conversations'] < conversations:
        started = time.perf_counter()
        counts = seed(store, conversations)
        print(f'seeded {counts} in {time.perf_counter() - started:.0f} s')
        if store.dialect == 'postgresql':
            with store.engine.connect().execution_options(isolation_level='AUTOCOMMIT') as connection:
                connection.exec_driver_sql('VACUUM ANALYZE')
        else:
            with store.engine.connect() as connection:
                connection.exec_driver_sql('ANALYZE')
    return store


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--url', required=True, help='SQLAlchemy URL of the store to fill')
    parser.add_argument('--conversations', type=int, default=100_000)
    args = parser.parse_args()
    store = open_seeded(args.url, args.conversations)
    print(store.counts())
    store.close()


if __name__ == '__main__':
    main()
