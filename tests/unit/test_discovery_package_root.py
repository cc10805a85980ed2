"""A project root that is itself a package, served from inside it as `python cli.py` would run there.

`agent/` holds `__init__.py` (importing its own modules under the package's name), `agent.py` and
`cli.py`. Run in that folder, `python cli.py` has the folder first on `sys.path`, imports `agent.py`
as the top-level module `agent`, and never runs `__init__.py`. Discovery must see the same: one
agent, no import error, the very object `cli.py` uses.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.projects import isolated_imports, write_files
from synapse_agents.discovery import Catalog

AGENT = '''
from pydantic_ai import Agent

agent = Agent('test', name='pinger')


@agent.tool_plain
def ping() -> str:
    """Answer pong."""
    return 'pong'
'''

CLI = """
from agent import agent


def describe() -> str:
    tool = agent.toolsets[0].tools['ping']
    return f'{agent.name} {tool.function.__module__} {tool.function.__code__.co_filename}'


if __name__ == '__main__':
    print(describe())
"""

LAYOUTS = {
    'from-import': ('agent', 'from agent.agent import agent\n'),
    'import': ('agent', 'import agent.agent\n'),
    'relative': ('bot', 'from .agent import agent\n'),
}


@pytest.fixture(params=list(LAYOUTS), ids=list(LAYOUTS))
def package_root(
    request: pytest.FixtureRequest, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """The package folder, as the current folder (where the user runs `synapse serve`)."""
    folder, init = LAYOUTS[request.param]
    root = write_files(
        isolated_env / folder, {'__init__.py': init, 'agent.py': AGENT, 'cli.py': CLI}
    ).resolve()
    monkeypatch.chdir(root)
    assert 'agent' not in sys.modules and 'cli' not in sys.modules
    with isolated_imports(root):
        yield root


def as_python_cli_sees_it(root: Path) -> str:
    """`python cli.py`, run in `root`: what it says about its agent."""
    env = {key: value for key, value in os.environ.items() if key != 'PYTHONPATH'}
    done = subprocess.run(
        [sys.executable, 'cli.py'], cwd=root, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_discovery_imports_the_folder_as_python_cli_py_does(package_root: Path) -> None:
    snapshot = Catalog([], package_root).scan()
    assert snapshot.problems == []
    assert [(a.slug, a.module, a.attribute, a.name) for a in snapshot.agents] == [
        ('agent.agent', 'agent', 'agent', 'pinger')
    ]
    [found] = snapshot.agents
    assert found.info.file == 'agent.py' and [t.name for t in found.info.tools] == ['ping']
    # The very object cli.py holds, from the very module `python cli.py` imports.
    assert sys.modules['cli'].agent is found.agent
    assert sys.modules['cli'].describe() == as_python_cli_sees_it(package_root)
    assert sys.modules['agent'].__file__ == str(package_root / 'agent.py')


def test_a_second_scan_finds_the_same_agent_once(package_root: Path) -> None:
    catalog = Catalog([], package_root)
    first = catalog.scan()
    (package_root / 'agent.py').write_text(AGENT.replace("name='pinger'", "name='assistant'"))
    os.utime(package_root / 'agent.py', ns=(10**18, 10**18))
    second = catalog.scan()
    assert [a.name for a in first.agents] == ['pinger'] and [a.name for a in second.agents] == ['assistant']
    assert second.problems == [] and sys.modules['cli'].agent is second.agents[0].agent
