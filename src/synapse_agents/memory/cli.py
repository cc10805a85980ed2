"""`synapse memory`: list, search, add, forget and distill memories.

A refusal (a bad label, an unknown id, a memory already stored) is one line on standard error with
exit code 1.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .. import cli_common
from ..cli_common import Json, echo_json, fail, when
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..conversations.tables import Conversation
    from ..runtime.assembled import SynapseRuntime
    from ..scope import Scope
    from .recall import Recall
    from .tables import Memory

memory_app = typer.Typer(
    help='Memories distilled from conversations, recalled by meaning.', no_args_is_help=True
)
COLUMNS = (
    Column('Id', least=12, last=True),
    Column('Tenant', least=8),
    Column('Subject', least=8, drop=3),
    Column('Applies to', least=8, drop=2),
    Column('Source', least=6, drop=4),
    Column('Content', least=20),
    Column('Created', least=10, drop=1),
)
FOUND_COLUMNS = (
    Column('Score', least=5, right=True),
    Column('Applies to', least=8),
    Column('Id', least=12, last=True, drop=3),
    Column('Subject', least=8, drop=2),
    Column('Content', least=20),
    Column('Created', least=10, drop=1),
)
SHOWN_CHARS = 160
"""The most of a memory's content a table shows (`--json` has all of it)."""
_FIELDS = {
    'q': 'QUERY',
    'content': 'CONTENT',
    'k': '-k',
    'tenant': '--tenant',
    'subject': '--subject',
    'applies_to': '--applies-to',
    'actor': '--actor',
    'source': '--source',
    'cursor': '--cursor',
}
"""The services' field names as the command line calls them."""

TenantOption = Annotated[str, typer.Option(help="Whose memory it is: 'type:id' (org:acme).")]
SubjectOption = Annotated[
    str | None, typer.Option(help="What it is about ('type:id'); unset: the whole tenant.")
]
AppliesOption = Annotated[str | None, typer.Option(help="Who it applies to ('type:id'); unset: everyone.")]


def _refused(exc: Exception) -> tuple[str, int] | None:
    from ..embeddings.choose import EmbedderUnavailable
    from ..errors import (
        ConversationNotFound,
        InvalidScope,
        MemoryInvalid,
        MemoryNotFound,
        VectorStoreUnavailable,
    )

    if isinstance(exc, MemoryInvalid):
        return f'{_FIELDS.get(exc.field, exc.field)}: {exc.problem}', 1
    known = (
        InvalidScope | MemoryNotFound | ConversationNotFound | EmbedderUnavailable | VectorStoreUnavailable
    )
    return (str(exc), 1) if isinstance(exc, known) else None


def _opened(ctx: typer.Context) -> AbstractContextManager[SynapseRuntime]:
    return cli_common.opened(ctx, refused=_refused)


def _recall(runtime: SynapseRuntime) -> Recall:
    from .recall import Recall

    return Recall.of(runtime.store, runtime.settings)


def _outs(runtime: SynapseRuntime, rows: list[Memory], embedder: str | None) -> list[dict[str, Any]]:
    """`rows` as the HTTP API answers them (with whether each has a vector of `embedder`)."""
    from . import book
    from .routes import MemoryOut

    embedded = book.embedded(runtime.store, [row.id for row in rows], embedder)
    return [MemoryOut.of(row, row.id in embedded).model_dump(mode='json') for row in rows]


def _shown(content: str) -> str:
    text = ' '.join(content.split())
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + '…'


def _where(row: Memory) -> str:
    about = f', about {row.subject}' if row.subject else ''
    whom = f', for {row.applies_to}' if row.applies_to else ', for everyone'
    return f'{row.tenant}{about}{whom}'


def _say(text: str) -> None:
    Console().print(escape(text), highlight=False)


def _scope(tenant: str, subject: str | None, actor: str | None) -> Scope:
    """The scope whose memories a search looks in (`InvalidScope` naming the option at fault)."""
    from ..scope import Scope, parse_label

    pairs = {
        axis: parse_label(f'--{axis}', value) if value else None
        for axis, value in (('tenant', tenant), ('subject', subject), ('actor', actor))
    }
    return Scope(**pairs)


@memory_app.command('list')
def memory_list(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's ('type:id').")] = None,
    subject: Annotated[
        str | None, typer.Option(help="Only those about this subject ('' for tenant-wide ones).")
    ] = None,
    applies_to: Annotated[
        str | None, typer.Option(help="Only those for this person ('' for everyone's).")
    ] = None,
    source: Annotated[
        str | None, typer.Option(help='Only those written so: distilled, tool or manual.')
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=200, help='At most this many.')] = 50,
    cursor: Annotated[str | None, typer.Option(help='Where the page before ended (its next_cursor).')] = None,
    as_json: Annotated[
        bool, typer.Option('--json', help='Print the JSON GET /api/memories answers.')
    ] = False,
) -> None:
    """The memories, newest first."""
    from . import book

    filters = book.MemoryFilters(tenant=tenant or None, subject=subject, applies_to=applies_to, source=source)
    with _opened(ctx) as runtime:
        rows, next_cursor = book.listing(runtime.store, filters, cursor=cursor, limit=limit)
        if as_json:
            outs = _outs(runtime, rows, _recall(runtime).embedder_name)
            echo_json({'memories': outs, 'next_cursor': next_cursor})
            return
    if not rows:
        Console().print('No memories.')
        return
    cells = [
        (
            row.id,
            row.tenant,
            row.subject or '—',
            row.applies_to or 'everyone',
            row.source,
            _shown(row.content),
            when(row.created_at),
        )
        for row in rows
    ]
    Console().print(fitted_table('Memories, newest first', COLUMNS, cells))
    if next_cursor is not None:
        _say(f'More: --cursor {next_cursor}')


@memory_app.command('search')
def memory_search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help='What to look for, in words.')],
    tenant: Annotated[str, typer.Option(help="The conversation's tenant ('type:id').")],
    subject: Annotated[str | None, typer.Option(help="Its subject ('type:id'); unset: none.")] = None,
    actor: Annotated[
        str | None, typer.Option(help="Who is talking ('type:id'); unset: only shared memories.")
    ] = None,
    k: Annotated[int, typer.Option('-k', min=1, max=100, help='At most this many.')] = 10,
    as_json: Annotated[
        bool, typer.Option('--json', help='Print the JSON GET /api/memories/search answers.')
    ] = False,
) -> None:
    """The memories a conversation of this tenant, subject and actor sees, closest to QUERY first."""
    import anyio

    with _opened(ctx) as runtime:
        scope = _scope(tenant, subject, actor)
        recall = _recall(runtime)
        answer = anyio.run(recall.search, scope, query, k)
        rows = [found.memory for found in answer.results]
        if as_json:
            outs = _outs(runtime, rows, answer.embedder)
            results = [
                {'memory': out, 'score': found.score, 'applies_to_everyone': found.applies_to_everyone}
                for found, out in zip(answer.results, outs, strict=True)
            ]
            echo_json({'ranked_by': answer.ranked_by, 'embedder': answer.embedder, 'results': results})
            return
    if answer.ranked_by == 'similarity':
        _say(f'Ranked by similarity to the query (embedder {answer.embedder}).')
    elif answer.embedder is None:
        _say('Ranked by recency, newest first: no embedder is on (the embedder setting).')
    else:
        _say(f'Ranked by recency, newest first: the embedder {answer.embedder} did not answer.')
    if not answer.results:
        Console().print('No memories.')
        return
    cells = [
        (
            f'{found.score:.3f}' if found.score is not None else '—',
            'everyone' if found.applies_to_everyone else f'only {found.memory.applies_to}',
            found.memory.id,
            found.memory.subject or '—',
            _shown(found.memory.content),
            when(found.memory.created_at),
        )
        for found in answer.results
    ]
    Console().print(fitted_table('Memories, closest first', FOUND_COLUMNS, cells))


@memory_app.command('add')
def memory_add(
    ctx: typer.Context,
    content: Annotated[str, typer.Argument(help='The memory: a fact or a preference, one sentence.')],
    tenant: TenantOption,
    subject: SubjectOption = None,
    applies_to: AppliesOption = None,
    created_by: Annotated[str | None, typer.Option(help='Who wrote it.')] = None,
    as_json: Annotated[
        bool, typer.Option('--json', help='Print the JSON POST /api/memories answers.')
    ] = False,
) -> None:
    """Write a memory by hand; one saying what a stored one on the same axes says is refused."""
    import anyio

    from . import book

    memory = book.MemoryInput(
        tenant=tenant,
        content=content,
        subject=subject or None,
        applies_to=applies_to or None,
        source='manual',
        created_by=created_by,
    )
    with _opened(ctx) as runtime:
        recall = _recall(runtime)
        written = anyio.run(partial(recall.remember, [memory], user=created_by))
        if not written:
            fail('Not added: a memory saying this is already stored for this tenant, subject and person.')
        [row] = written
        if as_json:
            echo_json(_outs(runtime, [row], recall.embedder_name)[0])
            return
    _say(f'Added memory {row.id} ({_where(row)}): {row.content}')


@memory_app.command('forget')
def memory_forget(
    ctx: typer.Context,
    memory_id: Annotated[str | None, typer.Argument(help='The memory (its id).')] = None,
    person: Annotated[
        str | None, typer.Option(help="Instead: everything that applies to this person ('type:id').")
    ] = None,
    tenant: Annotated[
        str | None, typer.Option(help="With --person: only in this tenant ('type:id').")
    ] = None,
    as_json: Annotated[bool, typer.Option('--json', help='Print the JSON the DELETE answers.')] = False,
) -> None:
    """Delete one memory, or (--person) everything that applies to a person, for good."""
    from . import book

    if (memory_id is None) == (person is None):
        fail('Give a memory id or --person, not both or neither.', 2)
    if memory_id is not None and tenant is not None:
        fail('--tenant goes with --person (one memory is named by its id alone).', 2)
    with _opened(ctx) as runtime:
        if memory_id is not None:
            row = book.remove(runtime.store, memory_id)
        else:
            label = book.check_label('--person', person, required=True) or ''
            within = book.check_label('--tenant', tenant)
            deleted = book.forget_person(runtime.store, label, within)
    if memory_id is not None:
        if as_json:
            echo_json({'deleted': row.id})
        else:
            _say(f'Forgot memory {row.id} ({_where(row)}): {row.content}')
        return
    if as_json:
        echo_json({'deleted': deleted})
        return
    noun = 'memory' if deleted == 1 else 'memories'
    _say(f'Forgot {deleted} {noun} that applied to {label} in {within or "every tenant"}.')


@memory_app.command('distill')
def memory_distill(
    ctx: typer.Context,
    conversation_id: Annotated[str, typer.Argument(help='The conversation (its id).')],
    now: Annotated[
        bool, typer.Option('--now', help='Distil it in this process and print what it did.')
    ] = False,
    as_json: Json = False,
) -> None:
    """Queue the distillation of what a conversation said since the last one (--now: run it here)."""
    import anyio

    from ..scope import Scope
    from .distiller import distil
    from .jobs import queue_distillation

    with _opened(ctx) as runtime:
        if not runtime.settings.memory_model:
            fail('No memory_model is named: set memory_model (SYNAPSE_MEMORY_MODEL) to distil.')
        conversation = _conversation(runtime, conversation_id)
        if now:
            outcome = anyio.run(distil, runtime.store, runtime.settings, conversation.id)
        else:
            task_id = queue_distillation(runtime, conversation.id, Scope.from_columns(conversation).tenant)
    if not now:
        if as_json:
            echo_json({'task_id': task_id})
        elif task_id is None:
            _say(f'A distillation of conversation {conversation.id} is already queued.')
        else:
            _say(f'Task {task_id}: distillation of conversation {conversation.id} queued for a worker.')
        return
    if as_json:
        echo_json({'conversation_id': conversation.id, **outcome.as_json()})
    if outcome.error is not None:
        fail(f'Distilling conversation {conversation.id} failed ({outcome.read} read): {outcome.error}')
    if as_json:
        return
    read = f'Read {outcome.read} message{"" if outcome.read == 1 else "s"} of conversation {conversation.id}'
    if outcome.skipped is not None:
        _say(f'{read}: nothing written ({outcome.skipped}).')
        return
    _say(f'{read}: wrote {outcome.shared} shared and {outcome.personal} personal memories.')


def _conversation(runtime: SynapseRuntime, conversation_id: str) -> Conversation:
    from ..conversations.tables import Conversation
    from ..errors import ConversationNotFound
    from ..store.ids import shown_id

    with runtime.store.read() as session:
        row = session.get(Conversation, conversation_id)
        if row is None:
            raise ConversationNotFound(f'No conversation with id {shown_id(conversation_id)}.')
        session.expunge(row)
        return row
