"""`synapse rules`: list, add, edit, pause, resume, remove, and preview what a scope's prompt gets.

A refusal (a bad input, an unknown id) is one line on standard error with exit code 1.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from .. import cli_common
from ..cli_common import echo_json, when
from ..cli_tables import Column, fitted_table

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime
    from .tables import Rule

rules_app = typer.Typer(
    help='Rules people write for a tenant, a subject or a person, put at the top of the prompt.',
    no_args_is_help=True,
)
COLUMNS = (
    Column('Id', least=12, last=True),
    Column('Tenant', least=8),
    Column('Subject', least=8, drop=3),
    Column('Applies to', least=8, drop=2),
    Column('Priority', least=4, right=True, drop=4),
    Column('On', least=3),
    Column('Text', least=20),
    Column('Updated', least=10, drop=1),
)

TenantOption = Annotated[str, typer.Option(help="Whose rule it is: 'type:id' (org:acme).")]
SubjectOption = Annotated[
    str | None, typer.Option(help="What it is about ('type:id'); unset: the whole tenant.")
]
AppliesOption = Annotated[str | None, typer.Option(help="Who it applies to ('type:id'); unset: everyone.")]


def _refused(exc: Exception) -> tuple[str, int] | None:
    from ..errors import InvalidScope, RuleInvalid, RuleNotFound

    return (str(exc), 1) if isinstance(exc, InvalidScope | RuleInvalid | RuleNotFound) else None


def _opened(ctx: typer.Context) -> AbstractContextManager[SynapseRuntime]:
    return cli_common.opened(ctx, refused=_refused)


def _json(rule: Rule) -> dict[str, Any]:
    from .routes import RuleOut

    return RuleOut.of(rule).model_dump(mode='json')


def _said(verb: str, rule: Rule) -> None:
    Console().print(f'{verb} rule {rule.id} ({escape(rule.tenant)}): {escape(rule.text)}', highlight=False)


@rules_app.command('list')
def rules_list(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's ('type:id').")] = None,
    subject: Annotated[
        str | None, typer.Option(help="Only this subject's ('' for tenant-wide ones).")
    ] = None,
    applies_to: Annotated[
        str | None, typer.Option(help="Only rules for this person ('' for shared ones).")
    ] = None,
    as_json: Annotated[bool, typer.Option('--json', help='Print the JSON GET /api/rules answers.')] = False,
) -> None:
    """The rules, by tenant and subject, shared before personal, in the order prompts get them."""
    from . import book

    with _opened(ctx) as runtime:
        rows = book.listing(
            runtime.store, book.RuleFilters(tenant=tenant, subject=subject, applies_to=applies_to)
        )
    if as_json:
        echo_json({'rules': [_json(row) for row in rows]})
        return
    if not rows:
        Console().print('No rules.')
        return
    cells = [
        (
            row.id,
            row.tenant,
            row.subject or '—',
            row.applies_to or 'everyone',
            str(row.priority),
            'yes' if row.enabled else 'no',
            row.text,
            when(row.updated_at),
        )
        for row in rows
    ]
    table = fitted_table('Rules', COLUMNS, cells)
    Console().print(table)


@rules_app.command('add')
def rules_add(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help='The rule, as the model should read it.')],
    tenant: TenantOption,
    subject: SubjectOption = None,
    applies_to: AppliesOption = None,
    priority: Annotated[int, typer.Option(help='Lower first; ties in the order written.')] = 0,
    paused: Annotated[bool, typer.Option('--paused', help='Save it switched off.')] = False,
    created_by: Annotated[str | None, typer.Option(help='Who wrote it.')] = None,
) -> None:
    """Add a rule."""
    from . import book

    rule = book.RuleInput(
        tenant=tenant,
        text=text,
        subject=subject,
        applies_to=applies_to,
        priority=priority,
        enabled=not paused,
        created_by=created_by,
    )
    with _opened(ctx) as runtime:
        _said('Added', book.add(runtime.store, rule))


@rules_app.command('edit')
def rules_edit(
    ctx: typer.Context,
    rule_id: Annotated[str, typer.Argument(help='The rule (its id).')],
    text: Annotated[str | None, typer.Option(help='New text.')] = None,
    subject: Annotated[str | None, typer.Option(help="New subject ('' for the whole tenant).")] = None,
    applies_to: Annotated[str | None, typer.Option(help="New person ('' for everyone).")] = None,
    priority: Annotated[int | None, typer.Option(help='New priority.')] = None,
) -> None:
    """Change a rule's text, subject, person or priority (what is not given stays)."""
    from . import book

    changes: dict[str, Any] = {}
    if text is not None:
        changes['text'] = text
    if subject is not None:
        changes['subject'] = subject or None
    if applies_to is not None:
        changes['applies_to'] = applies_to or None
    if priority is not None:
        changes['priority'] = priority
    if not changes:
        cli_common.fail('Nothing to change: give --text, --subject, --applies-to or --priority.', 2)
    with _opened(ctx) as runtime:
        _said('Changed', book.update(runtime.store, rule_id, changes))


@rules_app.command('pause')
def rules_pause(
    ctx: typer.Context, rule_id: Annotated[str, typer.Argument(help='The rule (its id).')]
) -> None:
    """Switch a rule off without deleting it."""
    from . import book

    with _opened(ctx) as runtime:
        _said('Paused', book.update(runtime.store, rule_id, {'enabled': False}))


@rules_app.command('resume')
def rules_resume(
    ctx: typer.Context, rule_id: Annotated[str, typer.Argument(help='The rule (its id).')]
) -> None:
    """Switch a paused rule back on."""
    from . import book

    with _opened(ctx) as runtime:
        _said('Resumed', book.update(runtime.store, rule_id, {'enabled': True}))


@rules_app.command('remove')
def rules_remove(
    ctx: typer.Context, rule_id: Annotated[str, typer.Argument(help='The rule (its id).')]
) -> None:
    """Delete a rule for good."""
    from . import book

    with _opened(ctx) as runtime:
        _said('Removed', book.remove(runtime.store, rule_id))


@rules_app.command('preview')
def rules_preview(
    ctx: typer.Context,
    tenant: TenantOption,
    subject: SubjectOption = None,
    actor: Annotated[str | None, typer.Option(help="Who is talking ('type:id').")] = None,
) -> None:
    """The block at the top of the prompt of a conversation of this tenant, subject and actor."""
    from ..scope import Scope, parse_label
    from . import book
    from .capability import render

    with _opened(ctx) as runtime:
        pairs = {
            name: parse_label(name, value) if value else None
            for name, value in (('tenant', tenant), ('subject', subject), ('actor', actor))
        }
        found = book.in_scope(runtime.store, Scope(**pairs))
        block = render(found, runtime.settings)
    Console().print(escape(block) if block else 'No rule applies.', highlight=False)
