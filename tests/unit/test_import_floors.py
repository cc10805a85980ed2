"""Imports point down the floors of docs/architecture.md, and no module imports itself back.

The graph is read from the source with `ast` (every import statement, those under
`TYPE_CHECKING` and inside functions included), so a cycle cannot hide behind a late import.
import-linter's layer contracts were the first choice; they cannot say "an area's `routes` and
`cli` modules sit on the front-door floor while the rest of the area sits lower", which is how
an area owns its whole slice, so the floors are written here as patterns.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from synapse_agents.plugins.defaults import DEFAULT_PLUGINS

PACKAGE = 'synapse_agents'
SOURCE = Path(__file__).resolve().parents[2] / 'src' / PACKAGE

# Lowest first. A module may import a module of its own floor or of a lower one. A module's
# floor is that of the last pattern it matches, so the door and root patterns below can take
# an area's `routes` modules (front doors) and its `cli` and `plugin` modules (the composition:
# they open a runtime, or register the area) up out of the area.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    (
        'vocabulary',
        (
            '_*',
            'corrupt',
            'errors',
            'provider_errors',
            'targets',
            'targets.*',
            'scope',
            'events',
            'ids',
            'money',
            'settings',
            'settings_reload',
            'encryption',
            'secret_key_file',
            'redaction',
            'import_path',
            'tools',
            'wire_types',
            'internals',
            'internals.*',
        ),
    ),
    ('store', ('store', 'store.*')),
    ('embeddings', ('embeddings', 'embeddings.*')),
    ('plugin hooks', ('plugins', 'plugins.hookspecs', 'plugins.manager', 'plugins.answers')),
    ('demo agents', ('demo', 'demo.*')),
    ('discovery', ('discovery', 'discovery.*', 'deps_setup')),
    ('area: registry', ('registry', 'registry.*')),
    ('area: accounting', ('accounting', 'accounting.*')),
    ('area: traces', ('traces', 'traces.*')),
    ('area: conversations', ('conversations', 'conversations.*')),
    ('area: rules', ('rules', 'rules.*')),
    ('area: compression', ('compression', 'compression.*')),
    ('area: tasks', ('tasks', 'tasks.*')),
    ('area: memory', ('memory', 'memory.*')),
    ('area: evals', ('evals', 'evals.*')),
    ('area: privacy', ('privacy', 'privacy.*')),
    ('area: workflows', ('workflows', 'workflows.*')),
    ('area: retrieval', ('retrieval', 'retrieval.*')),
    ('engine', ('chat', 'chat.*')),
    (
        'front doors',
        (
            'runtime',
            'runtime.*',
            'web',
            'web.*',
            '*.routes',
            '*.routes.*',
            '*.route_*',
            '*_routes',
            'project_init',
            'tasks.service',
            'tasks.celery_queue',
            'tasks.runner',
            'tasks.agents',
            'tasks.workers',
            'tasks.jobs',
            'memory.jobs',
            'retrieval.jobs',
            'evals.execute',
            'mcp_server',
            'mcp_server.*',
            'workflows.execute',
            'workflows.agents',
        ),
    ),
    (
        'root',
        (
            '',
            '__main__',
            'capabilities',
            'cli',
            'cli_*',
            '*.cli',
            '*.cli_*',
            '*.plugin',
            'tasks.celery_app',
            'tasks.processes',
            'runtime.root',
            'plugins.defaults',
            'web.app',
            'web.mount',
            'web.server',
        ),
    ),
]

# Modules that load a command's machinery only when the command runs, and an area's plugin module,
# which loads the area's routes and jobs only when the root asks for them: `synapse --help` then
# stays fast. Their late imports still count in the graph (floors and cycles) below.
LATE_IMPORTS_ALLOWED = ('cli', 'cli_*', '*.cli', '*.cli_*', '*.plugin')


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    in_function: bool


def _module_names() -> dict[str, tuple[Path, bool]]:
    modules: dict[str, tuple[Path, bool]] = {}
    for path in SOURCE.rglob('*.py'):
        parts = list(path.relative_to(SOURCE).with_suffix('').parts)
        is_package = parts[-1] == '__init__'
        if is_package:
            parts = parts[:-1]
        modules['.'.join(parts)] = (path, is_package)
    return modules


def _targets(
    module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]
) -> Iterator[str]:
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        if node.level:
            base = [PACKAGE, *module.split('.')] if module else [PACKAGE]
            if not is_package:
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = '.'.join([*base, *([node.module] if node.module else [])])
        else:
            prefix = node.module or ''
        names = [f'{prefix}.{alias.name}' for alias in node.names]
        if not all(name[len(PACKAGE) + 1 :] in known for name in names):
            names.append(prefix)  # a name defined in `prefix` itself, not a submodule
    for name in names:
        if name != PACKAGE and not name.startswith(PACKAGE + '.'):
            continue
        inner = name[len(PACKAGE) + 1 :]
        while inner and inner not in known:
            inner = inner.rpartition('.')[0]
        yield inner


def import_edges() -> list[Edge]:
    """Every import of one `synapse_agents` module by another."""
    modules = _module_names()
    known = set(modules)
    edges: set[Edge] = set()
    for module, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding='utf-8'))

        def visit(
            node: ast.AST, in_function: bool, module: str = module, is_package: bool = is_package
        ) -> None:
            for child in ast.iter_child_nodes(node):
                nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
                if isinstance(child, ast.Import | ast.ImportFrom):
                    for target in set(_targets(module, is_package, child, known)):
                        if target != module:
                            edges.add(Edge(module, target, child.lineno, nested))
                visit(child, nested)

        visit(tree, False)
    return sorted(edges, key=lambda e: (e.source, e.target, e.line))


def floor_of(module: str) -> int:
    found = -1
    for index, (_, patterns) in enumerate(FLOORS):
        if any(fnmatchcase(module, pattern) for pattern in patterns):
            found = index
    return found


def cycles(edges: list[Edge]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return groups


def _label(module: str) -> str:
    return f'{PACKAGE}.{module}' if module else PACKAGE


def test_every_module_has_a_floor() -> None:
    assert [m for m in _module_names() if floor_of(m) < 0] == []


def test_no_import_points_up_a_floor() -> None:
    upward = [
        f'{_label(e.source)}:{e.line} ({FLOORS[floor_of(e.source)][0]}) imports '
        f'{_label(e.target)} ({FLOORS[floor_of(e.target)][0]})'
        for e in import_edges()
        if floor_of(e.target) > floor_of(e.source)
    ]
    assert upward == []


def test_no_module_imports_itself_back() -> None:
    assert cycles(import_edges()) == []


def test_no_import_of_synapse_is_hidden_in_a_function() -> None:
    hidden = [
        f'{_label(e.source)}:{e.line} imports {_label(e.target)} inside a function'
        for e in import_edges()
        if e.in_function and not any(fnmatchcase(e.source, p) for p in LATE_IMPORTS_ALLOWED)
    ]
    assert hidden == []


def test_the_default_plugins_sit_on_the_root_floor() -> None:
    # The manager imports them by name (plugins/defaults.py), out of this graph's sight: each must
    # be a module that only the root may import.
    modules = _module_names()
    for name in DEFAULT_PLUGINS:
        inner = name.removeprefix(f'{PACKAGE}.')
        assert inner in modules, name
        assert FLOORS[floor_of(inner)][0] == 'root', name


def test_the_checker_sees_a_cycle_and_an_upward_import() -> None:
    edges = [Edge('store.a', 'chat.b', 1, False), Edge('chat.b', 'store.a', 2, True)]
    assert cycles(edges) == [['chat.b', 'store.a']]
    assert floor_of('store.a') < floor_of('chat.b')
    assert floor_of('tasks.routes') > floor_of('chat.engine') > floor_of('tasks.queue')


if __name__ == '__main__':
    edges = import_edges()
    for e in edges:
        if floor_of(e.target) > floor_of(e.source):
            floors = f'{FLOORS[floor_of(e.source)][0]} -> {FLOORS[floor_of(e.target)][0]}'
            print(f'UP     {_label(e.source)}:{e.line} -> {_label(e.target)}  ({floors})')
    for e in edges:
        if e.in_function and not any(fnmatchcase(e.source, p) for p in LATE_IMPORTS_ALLOWED):
            print(f'HIDDEN {_label(e.source)}:{e.line} -> {_label(e.target)}')
    for group in cycles(edges):
        print(f'CYCLE  {len(group)}: {" ".join(group)}')
    print('unplaced:', [m for m in _module_names() if floor_of(m) < 0])
