"""`synapse people`: everything stored about one person in a tenant, shown or deleted.

A refusal (a bad label) is one line on standard error with exit code 1.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .. import cli_common
from ..cli_common import Json, echo_json, when
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

people_app = typer.Typer(
    help='What is stored about one person in a tenant: show it, or delete it.', no_args_is_help=True
)
VECTOR_COLUMNS = (
    Column('Id', least=12, last=True),
    Column('Scope', least=6),
    Column('Source', least=6, drop=2),
    Column('Content', least=20),
    Column('Created', least=10, drop=1),
)
MEMORY_COLUMNS = (
    Column('Id', least=12, last=True),
    Column('How', least=10),
    Column('Content', least=20),
    Column('Created', least=10, drop=1),
)
SHOWN_CHARS = 160
_FIELDS = {'person': 'PERSON', 'tenant': '--tenant'}

PersonArgument = Annotated[str, typer.Argument(help="The person: 'type:id' (user:42).")]
TenantOption = Annotated[str, typer.Option(help="The tenant: 'type:id' (org:acme).")]


def _refused(exc: Exception) -> tuple[str, int] | None:
    from ..errors import MemoryInvalid

    if isinstance(exc, MemoryInvalid):
        return f'{_FIELDS.get(exc.field, exc.field)}: {exc.problem}', 1
    return None


def _opened(ctx: typer.Context) -> AbstractContextManager[SynapseRuntime]:
    return cli_common.opened(ctx, refused=_refused)


def _shown(content: str) -> str:
    text = ' '.join(content.split())
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + '…'


def _say(text: str) -> None:
    Console().print(escape(text), highlight=False)


@people_app.command('show')
def people_show(
    ctx: typer.Context, person: PersonArgument, tenant: TenantOption, as_json: Json = False
) -> None:
    """Everything stored about PERSON in a tenant: vector memories, memories, ledger rows."""
    from . import people
    from .memory_routes import PersonMemoryOut, VectorMemoryOut

    with _opened(ctx) as runtime:
        data = people.person_data(runtime.store, person, tenant)
    if as_json:
        echo_json(
            {
                'person': data.person,
                'tenant': data.tenant,
                'vector_memories': [
                    VectorMemoryOut.model_validate(row).model_dump(mode='json')
                    for row in data.vector_memories
                ],
                'memories': [
                    PersonMemoryOut.model_validate(row).model_dump(mode='json') for row in data.memories
                ],
                'ledger_rows': data.ledger_rows,
                'ledger': people.LEDGER_KEPT,
            }
        )
        return
    _say(f'Stored about {data.person} in {data.tenant}:')
    if data.vector_memories:
        cells = [
            (row.id, row.scope, row.source_type, _shown(row.content), when(row.created_at))
            for row in data.vector_memories
        ]
        Console().print(fitted_table('Vector memories, newest first', VECTOR_COLUMNS, cells))
    else:
        _say('No vector memories.')
    if data.memories:
        memory_cells = [
            (
                row.id,
                _how(row.applies_to, row.subject, data.person),
                _shown(row.content),
                when(row.created_at),
            )
            for row in data.memories
        ]
        Console().print(fitted_table('Memories, newest first', MEMORY_COLUMNS, memory_cells))
    else:
        _say('No memories.')
    _say(f'Ledger rows naming them: {data.ledger_rows} (kept when their data is deleted: the books).')


@people_app.command('forget')
def people_forget(
    ctx: typer.Context,
    person: PersonArgument,
    tenant: TenantOption,
    yes: Annotated[bool, typer.Option('--yes', '-y', help='Do not ask for confirmation.')] = False,
    as_json: Json = False,
) -> None:
    """Delete everything stored about PERSON in a tenant (the ledger's rows are kept: the books)."""
    from . import people

    with _opened(ctx) as runtime:
        data = people.person_data(runtime.store, person, tenant)
        total = len(data.vector_memories) + len(data.memories)
        if (
            not yes
            and total
            and not _confirm(
                f'Delete {len(data.vector_memories)} vector memories and {len(data.memories)} memories '
                f'of {data.person} in {data.tenant}?'
            )
        ):
            raise typer.Exit(1)
        gone = people.forget_person(runtime.store, data.person, data.tenant)
    if as_json:
        echo_json(
            {
                'person': gone.person,
                'tenant': gone.tenant,
                'deleted': {'vector_memories': gone.vector_memories, 'memories': gone.memories},
                'ledger_rows_kept': gone.ledger_rows_kept,
                'ledger': people.LEDGER_KEPT,
            }
        )
        return
    _say(
        f'Deleted {gone.vector_memories} vector memor{"y" if gone.vector_memories == 1 else "ies"} and '
        f'{gone.memories} memor{"y" if gone.memories == 1 else "ies"} of {gone.person} in {gone.tenant}. '
        f'Kept {gone.ledger_rows_kept} ledger row{"" if gone.ledger_rows_kept == 1 else "s"} naming them '
        '(the books: tokens and costs, never what was said).'
    )


def _confirm(question: str) -> bool:
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:  # end of input: nobody is there to answer
        Console(stderr=True).print('Not confirmed; pass --yes to go ahead without a question.')
        return False


def _how(applies_to: str | None, subject: str | None, person: str) -> str:
    if applies_to == person and subject == person:
        return 'for and about them'
    return 'applies to them' if applies_to == person else 'about them'
