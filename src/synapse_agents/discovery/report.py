"""`synapse agents`: the catalog as a Rich table (or the API's JSON), problems and degraded features
underneath."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .._words import plural
from .agent_info import AgentCard
from .catalog import CatalogSnapshot
from .degraded import DegradedFeature

NO_AGENTS_HINT = (
    'Discovery imports the targets and lists the module-level pydantic_ai.Agent objects in them. '
    'Name where yours are: `synapse agents app.agents` (a module), `app/agents.py` or a folder, '
    '`app.agents:support` (module:attribute), or `app.agents:build_agent` (module:build_agent, a '
    'factory function called without arguments); or set `agents` in \\[tool.synapse].'
)


def print_report(snapshot: CatalogSnapshot, console: Console, *, tracebacks: bool = False) -> None:
    """One row per agent, one paragraph per discovery problem, one line per degraded feature."""
    listing = snapshot.listing()
    where = ', '.join(snapshot.targets)
    if not listing.agents:
        console.print(f'No agents found in {escape(where)} (project {escape(str(snapshot.project_root))}).')
        console.print(NO_AGENTS_HINT, highlight=False)
    else:
        table = Table(
            title=f'{plural(len(listing.agents), "agent")} in {escape(where)}', title_justify='left'
        )
        table.add_column('Slug', style='bold', no_wrap=True)
        table.add_column('Model', overflow='fold')
        table.add_column('Tools', overflow='fold')
        table.add_column('Notes', overflow='fold')
        for card in listing.agents:
            table.add_row(escape(card.slug), escape(_model(card)), escape(_tools(card)), _notes(card))
        console.print(table)
    if listing.problems:
        console.print(f'\n[bold red]{plural(len(listing.problems), "discovery problem")}[/bold red]')
        for problem in listing.problems:
            place = problem.file or problem.module or problem.target
            detail = f'{escape(problem.exception)}: {escape(problem.message)}'
            console.print(f'[red]{problem.kind}[/red] {escape(place)}\n  {detail}', soft_wrap=True)
            if tracebacks and problem.traceback:
                console.print(escape(problem.traceback.rstrip()), style='dim', soft_wrap=True)
        if not tracebacks:
            console.print('[dim]Add --tracebacks to see where each one was raised.[/dim]')
    if listing.degraded:
        console.print(f'\n[bold yellow]{len(listing.degraded)} degraded features[/bold yellow]')
        for feature in listing.degraded:
            console.print(
                f'[yellow]{escape(DegradedFeature(**feature.model_dump()).sentence())}[/yellow]',
                soft_wrap=True,
            )


def _model(card: AgentCard) -> str:
    if card.model is None:
        return 'no model set'
    text = card.model.id + (' (demo)' if card.model.is_demo else '')
    if card.model.fallbacks:
        text += ' → ' + ', '.join(card.model.fallbacks)
    return text


def _tools(card: AgentCard) -> str:
    parts = list(card.tools)
    counts = card.counts
    if counts.native_tools:
        parts.append(f'{counts.native_tools} native')
    if counts.mcp_toolsets:
        parts.append(f'{counts.mcp_toolsets} MCP')
    return ', '.join(parts) or '—'


def _notes(card: AgentCard) -> str:
    notes = []
    if card.stateless:
        notes.append('stateless')
    if card.structured_output:
        notes.append('structured output')
    notes.extend(f'[yellow]{escape(problem.message)}[/yellow]' for problem in card.problems)
    return '\n'.join(notes)
