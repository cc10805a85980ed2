"""`synapse traces`: the roots (`list`), one tree (`show RUN_ID`) and one model call (`call DEBUG_ID`).

Reads go through `traces.read`, and `--json` prints what the HTTP API answers (`traces.schemas`).
A refusal is one line on standard error: exit 2 for an id with no trace or an option that cannot be
used, 1 when the settings or the store refuse.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text
from rich.tree import Tree

from ..cli_common import Json, echo_json, fail, opened, when
from ..cli_tables import Column, fitted_table

traces_app = typer.Typer(
    help='Traces of agent runs: the roots, one tree of runs, model calls and tool calls, one model call.',
    no_args_is_help=True,
)

PREVIEW = 400
"""The most characters of a message part `call` prints (`--json` prints everything)."""
DRAWN = 8
"""The most levels `show` draws as one tree; a deeper branch is drawn after it, as a tree of its own."""
LIST_COLUMNS = (
    Column('Started', least=10),
    Column('Agent', least=10),
    Column('Origin', least=9),
    Column('Status', least=5),
    Column('Model', least=10, drop=3),
    Column('Tokens', least=8, right=True, drop=2),
    Column('Cost', least=6, right=True, drop=4),
    Column('Took', least=6, right=True, drop=1),
    Column('Run id', least=12, last=True),
)
"""The columns of `list`: a run id on one line when there is room (it stays copyable), folded whole
when there is not; in 80 columns the model, tokens, cost and duration leave first."""


# -- formatting ----------------------------------------------------------------------------------


def took(milliseconds: int | None) -> str:
    if milliseconds is None:
        return '—'
    return f'{milliseconds} ms' if milliseconds < 1000 else f'{milliseconds / 1000:.1f} s'


def cost_text(cost: Decimal | str | None) -> str:
    from ..accounting.spend import decimal_text

    if cost is None:
        return 'unpriced'
    return decimal_text(cost) if isinstance(cost, Decimal) else cost


def tokens_text(input_tokens: int | None, output_tokens: int | None) -> str:
    return f'{input_tokens or 0:,} in / {output_tokens or 0:,} out'


def _clip(text: str, limit: int = PREVIEW) -> str:
    return text if len(text) <= limit else f'{text[:limit]}… ({len(text):,} characters)'


# -- list ----------------------------------------------------------------------------------------


@traces_app.command('list')
def list_command(
    ctx: typer.Context,
    agent: Annotated[str | None, typer.Option(help='Only runs of this agent (its slug).')] = None,
    origin: Annotated[
        str | None, typer.Option(help='Only this origin: direct, code, config, ephemeral or workflow.')
    ] = None,
    errors: Annotated[bool, typer.Option('--errors', help='Only trees in which a run failed.')] = False,
    before: Annotated[
        str | None, typer.Option(help='The next_before of the previous page (--json prints it).')
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=200, help='At most this many roots.')] = 50,
    as_json: Json = False,
) -> None:
    """Root runs, newest first: when, agent, origin, status, model, tokens, cost, duration, run id."""
    from . import read
    from .routes import RUN_ID
    from .schemas import TracePage, TraceRoot
    from .tables import ORIGINS

    if origin is not None and origin not in ORIGINS:
        fail(f'--origin: {origin!r:.80} is not one of {", ".join(ORIGINS)}', 2)
    if before is not None and not _is_run_id(before, RUN_ID):
        fail(f'--before: {before!r:.80} is not a run id', 2)
    filters = read.RootFilters(agent=agent, origin=origin, errors=errors, before=before, limit=limit)
    with opened(ctx) as runtime:
        rows = read.list_roots(runtime.store, filters)
    if as_json:
        page = TracePage(
            roots=[TraceRoot.of(row) for row in rows],
            next_before=rows[-1].agent_run_id if len(rows) == limit else None,
        )
        echo_json(page.model_dump(mode='json'))
        return
    if not rows:
        Console().print('No traces.', highlight=False)
        return
    cells = [
        (
            when(row.started_at),
            row.agent_key or row.agent_name or '—',
            row.origin,
            Text('error', style='red') if row.status == 'error' else 'ok',
            row.model or '—',
            tokens_text(row.input_tokens, row.output_tokens),
            cost_text(row.cost),
            took(row.duration_ms),
            row.agent_run_id,
        )
        for row in rows
    ]
    table = fitted_table('Traces, newest first', LIST_COLUMNS, cells)
    Console().print(table)
    if len(rows) == limit:
        Console().print(f'More: --before {rows[-1].agent_run_id}', highlight=False)


def _is_run_id(value: str, pattern: str) -> bool:
    import re

    return re.fullmatch(pattern, value) is not None


# -- show ----------------------------------------------------------------------------------------


def _label(node: Any) -> str:
    """One line for a node of the tree (a `TraceNode`), markup escaped."""
    parts: list[str]
    if node.kind == 'run':
        parts = [f'[bold]{escape(node.name)}[/bold]', f'run {node.id}', node.origin or '']
        if node.model:
            parts.append(escape(node.model))
        parts.append(tokens_text(node.input_tokens, node.output_tokens))
        parts.append(f'cost {cost_text(node.cost)}')
    elif node.kind == 'model':
        parts = [f'model call [cyan]{escape(node.name)}[/cyan]', f'debug {node.id}']
        parts.append(tokens_text(node.input_tokens, node.output_tokens))
        parts.append(f'cost {cost_text(node.cost)}')
        if node.finish_reason:
            parts.append(escape(node.finish_reason))
    else:
        parts = [f'tool [magenta]{escape(node.name)}[/magenta]']
        if node.tool_call_id:
            parts.append(escape(node.tool_call_id))
    parts.append(took(node.duration_ms))
    parts.append('[red]error[/red]' if node.status == 'error' else 'ok')
    line = ' · '.join(part for part in parts if part)
    if node.error:
        line += f'\n[red]{escape(_clip(node.error.splitlines()[0]))}[/red]'
    return line


def _draw(console: Console, root: Any) -> None:
    """Print the tree under `root` as trees of at most `DRAWN` levels, each branch that goes deeper
    printed after as a tree of its own (headed by its level), so that a deep trace stays readable
    in a narrow terminal. A stack, not recursion; a run the answer stops at says how to see more."""
    sections: list[tuple[Any, int]] = [(root, 0)]
    while sections:
        top, level = sections.pop()
        tree = Tree(_label(top) if level == 0 else f'[dim]level {level}:[/dim] {_label(top)}')
        later: list[tuple[Any, int]] = []
        stack = [(tree, top, 0)]
        while stack:
            branch, node, below = stack.pop()
            if node.hidden:
                branch.add(f'… {node.hidden:,} more below: synapse traces show {escape(node.id)}')
            if below == DRAWN and node.children:
                branch.add('[dim]… continued below[/dim]')
                later.append((node, level + below))
                continue
            for child in node.children:
                stack.append((branch.add(_label(child)), child, below + 1))
        console.print(tree, highlight=False)
        sections.extend(later)  # popped first to last: the stack above visited the last child first


@traces_app.command('show')
def show_command(
    ctx: typer.Context,
    run_id: Annotated[str, typer.Argument(help="A run's agent_run_id (a root's, or a run below it).")],
    as_json: Json = False,
) -> None:
    """The tree from a run down: its model calls and tool calls, and the runs started inside them
    (64 levels; a run below that is shown with how much is under it)."""
    from ..store.ids import shown_id
    from . import read
    from .edge import trimmed
    from .routes import RUN_ID
    from .schemas import TraceNode, TraceTree

    found = None
    if _is_run_id(run_id, RUN_ID):
        with opened(ctx) as runtime:
            found = read.tree(runtime.store, run_id)
    if found is None:
        fail(f'No trace for run {shown_id(run_id)}.', 2)
    root = TraceNode.model_validate(trimmed(found))
    if as_json:
        echo_json(TraceTree(root=root).model_dump(mode='json'))
        return
    console = Console()
    console.print(
        f'Trace {root.trace_id or "—"}, started {when(root.started_at)}'
        f'; conversation {root.conversation_id or "—"}.',
        highlight=False,
    )
    _draw(console, root)


# -- call ----------------------------------------------------------------------------------------


def _part_text(part: Any) -> str:
    """A message part of the GenAI form as one short line."""
    if not isinstance(part, dict):
        return _clip(json.dumps(part, default=str, ensure_ascii=False))
    kind = part.get('type')
    if kind in ('text', 'thinking') and isinstance(part.get('content'), str):
        return f'{kind}: {_clip(part["content"])}'
    if kind == 'tool_call':
        arguments = part.get('arguments')
        text = arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)
        return f'tool call {part.get("name")}({_clip(text)})'
    if kind == 'tool_call_response':
        result = json.dumps(part.get('result'), default=str, ensure_ascii=False)
        return f'tool return {part.get("name")}: {_clip(result)}'
    return _clip(json.dumps(part, default=str, ensure_ascii=False))


def _messages(console: Console, title: str, messages: Any) -> None:
    console.print(f'[bold]{title}[/bold]')
    if isinstance(messages, dict) and messages.get('truncated'):
        size = messages.get('bytes', 0)
        console.print(f'  (cut: {size:,} bytes; --json shows the preview)', highlight=False)
        return
    if not isinstance(messages, list) or not messages:
        console.print('  —')
        return
    for message in messages:
        role = message.get('role', '?') if isinstance(message, dict) else '?'
        parts = message.get('parts', []) if isinstance(message, dict) else [message]
        for part in parts or [None]:
            console.print(f'  {escape(str(role))}: {escape(_part_text(part))}', highlight=False)


@traces_app.command('call')
def call_command(
    ctx: typer.Context,
    debug_id: Annotated[str, typer.Argument(help="A model call's debug id (`traces show` lists them).")],
    as_json: Json = False,
) -> None:
    """One model call: what was sent (instructions, tools, history) and what came back."""
    from ..store.ids import is_valid_id, shown_id
    from . import read
    from .schemas import ModelCallDetail

    found = None
    if is_valid_id(debug_id):
        with opened(ctx) as runtime:
            found = read.call_detail(runtime.store, debug_id)
    if found is None:
        fail(f'No model call with id {shown_id(debug_id)}.', 2)
    detail = ModelCallDetail.model_validate(found)
    if as_json:
        echo_json(detail.model_dump(mode='json'))
        return
    console = Console()
    status = '[red]error[/red]' if detail.status == 'error' else 'ok'
    console.print(
        f'Model call {detail.id}: {escape(detail.model or "—")} ({escape(detail.provider or "—")}), '
        f'{status}, {detail.action}, run {detail.agent_run_id} (depth {detail.depth}, {detail.origin}).',
        highlight=False,
    )
    console.print(
        f'Started {when(detail.started_at)}, took {took(detail.duration_ms)}; tokens '
        f'{tokens_text(detail.input_tokens, detail.output_tokens)}; cost {cost_text(detail.cost)}; '
        f'finish {escape(detail.finish_reason or "—")}; {detail.data_bytes:,} bytes'
        + (' (cut to debug_body_bytes)' if detail.truncated else '')
        + '.',
        highlight=False,
    )
    if detail.error:
        console.print(f'[red]Error:[/red] {escape(detail.error)}', highlight=False)
    data = detail.data
    instructions = data.get('instructions')
    if instructions:
        console.print('[bold]Instructions[/bold]')
        for part in instructions if isinstance(instructions, list) else [instructions]:
            text = part if isinstance(part, str) else _part_text(part)
            console.print(f'  {escape(_clip(text))}', highlight=False)
    tools = data.get('tool_definitions')
    if isinstance(tools, list) and tools:
        names = ', '.join(str(tool.get('name')) for tool in tools if isinstance(tool, dict))
        console.print(f'[bold]Tools[/bold] {escape(names)}', highlight=False)
    _messages(console, 'Sent', data.get('history'))
    _messages(console, 'Came back', data.get('turns'))
