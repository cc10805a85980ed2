"""Discovery over fixture projects written to disk: targets, safe imports, slugs, hot reload."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import Catalog, CatalogSnapshot

AGENT = """
from pydantic_ai import Agent

{name} = Agent('test', instructions={text!r})
"""


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    """The test's project folder (the current directory), imports cleaned up afterwards."""
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env)


def slugs(snapshot: CatalogSnapshot) -> list[str]:
    return [agent.slug for agent in snapshot.agents]


# -- targets ------------------------------------------------------------------------------


def test_default_target_is_the_agents_folder_when_it_exists(project: FixtureProject) -> None:
    project.write(
        {
            'agents/support.py': AGENT.format(name='support_agent', text='Help.'),
            'elsewhere.py': AGENT.format(name='ignored_agent', text='Not scanned.'),
        }
    )
    snapshot = Catalog([], project.root).scan()
    assert snapshot.targets == ['./agents']
    assert slugs(snapshot) == ['agents.support.support-agent']
    found = snapshot.agents[0]
    assert (found.name, found.module, found.attribute) == ('support_agent', 'agents.support', 'support_agent')
    assert found.info.instructions[0].text == 'Help.'


def test_without_an_agents_folder_the_whole_project_is_scanned_minus_skipped_folders(
    project: FixtureProject,
) -> None:
    skipped = AGENT.format(name='never', text='Must not be imported.') + '\nraise SystemExit("imported")\n'
    project.write(
        {
            'main_agents.py': AGENT.format(name='main_agent', text='Main.'),
            'pkg/__init__.py': '',
            'pkg/deep/inner.py': AGENT.format(name='inner_agent', text='Inner.'),
            'notes.py': 'print("nothing to see")\nraise SystemExit(1)\n',
            '.hidden/a.py': skipped,
            'venv/pyvenv.cfg': 'home = /usr\n',
            'venv/lib/a.py': skipped,
            'node_modules/x/a.py': skipped,
            'tests/test_agents.py': skipped,
            'test_agent.py': skipped,
            'conftest.py': skipped,
            'setup.py': skipped,
            'build/lib/a.py': skipped,
        }
    )
    snapshot = Catalog([], project.root).scan()
    assert snapshot.targets == ['.']
    assert slugs(snapshot) == ['main_agents.main-agent', 'pkg.deep.inner.inner-agent']
    assert snapshot.problems == []


def test_module_path_package_attribute_file_and_spec_targets(project: FixtureProject) -> None:
    pkg = project.package
    project.write(
        {
            f'src/{pkg}/__init__.py': '',
            f'src/{pkg}/agents/__init__.py': f'from {pkg}.agents.support import support_agent\n',
            f'src/{pkg}/agents/support.py': AGENT.format(name='support_agent', text='Support.')
            + "\nhelper_agent = Agent('test')\n",
            f'src/{pkg}/agents/billing.py': AGENT.format(name='billing_agent', text='Billing.'),
            'scripts/one-off.py': AGENT.format(name='script_agent', text='A file whose name is no module.'),
            'specs/researcher.yaml': 'name: researcher\nmodel: test\ninstructions: Research.\n',
        }
    )
    snapshot = Catalog(
        [
            f'{pkg}.agents',
            f'{pkg}.agents.billing:billing_agent',
            'scripts/one-off.py',
            'specs/researcher.yaml',
        ],
        project.root,
    ).scan()
    assert snapshot.problems == []
    assert slugs(snapshot) == [  # by module, then in definition order
        'one_off.script-agent',
        # the package's re-export of support_agent is not a second agent: it lives in .support
        f'{pkg}.agents.billing.billing-agent',
        f'{pkg}.agents.support.support-agent',
        f'{pkg}.agents.support.helper-agent',
        'specs.researcher.yaml',
    ]
    spec = snapshot.get('specs.researcher.yaml')
    assert spec is not None and spec.name == 'researcher' and spec.module == 'specs/researcher.yaml'
    assert spec.info.instructions[0].text == 'Research.'


def test_a_folder_imports_only_files_that_mention_agents_and_only_spec_like_json(
    project: FixtureProject,
) -> None:
    project.write(
        {
            'agents/helpers.py': 'VALUE = 1\nraise RuntimeError("must not run")\n',
            'agents/bot.py': AGENT.format(name='bot', text='Bot.'),
            'agents/package.json': '{"name": "x", "version": "1.0.0"}',
            'agents/writer.json': '{"model": "test", "name": "writer", "instructions": "Write."}',
            'agents/compose.yaml': 'services:\n  web:\n    image: nginx\n',
        }
    )
    snapshot = Catalog(['agents'], project.root).scan()
    assert snapshot.problems == []
    assert slugs(snapshot) == ['agents.bot.bot', 'agents.writer.json']


def test_src_layout_and_sibling_imports_work_like_python_does(project: FixtureProject) -> None:
    pkg = project.package
    project.write(
        {
            f'src/{pkg}/__init__.py': '',
            f'src/{pkg}/prompts.py': 'PROMPT = "From the src package."\n',
            'agents/tools.py': 'def shout(text: str) -> str:\n    return text.upper()\n',
            'agents/bot.py': f"""
                from pydantic_ai import Agent
                from tools import shout
                from {pkg}.prompts import PROMPT

                bot = Agent('test', instructions=PROMPT)
                bot.tool_plain(shout)
            """,
        }
    )
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    bot = snapshot.get('agents.bot.bot')
    assert bot is not None
    assert bot.info.instructions[0].text == 'From the src package.'
    assert [tool.name for tool in bot.info.tools] == ['shout']


def test_missing_targets_are_problems_not_failures(project: FixtureProject) -> None:
    project.write({'agents/a.py': AGENT.format(name='a', text='A.')})
    snapshot = Catalog(
        ['agents', 'no_such_module_xyz', 'missing/folder', 'agents.a:nope', 'agents.a:Agent'], project.root
    ).scan()
    assert slugs(snapshot) == ['agents.a.a']
    kinds = [(p.kind, p.target) for p in snapshot.problems]
    assert kinds == [
        ('target_not_found', 'no_such_module_xyz'),
        ('target_not_found', 'missing/folder'),
        ('target_not_found', 'agents.a:nope'),
        ('target_not_found', 'agents.a:Agent'),
    ]
    assert "has no attribute 'nope'" in snapshot.problems[2].message
    assert (
        'is a ' in snapshot.problems[3].message and 'not a pydantic_ai.Agent' in snapshot.problems[3].message
    )


# -- safe import --------------------------------------------------------------------------


def test_a_failing_module_is_a_problem_and_every_other_agent_still_shows(project: FixtureProject) -> None:
    project.write(
        {
            'agents/good.py': AGENT.format(name='good', text='Good.'),
            'agents/broken.py': """
                from pydantic_ai import Agent

                broken = Agent('test')


                def helper():
                    return 1 / 0


                helper()
            """,
            'agents/exits.py': "from pydantic_ai import Agent\nraise SystemExit('agent module exits')\n",
            'agents/syntax.py': 'agent = Agent(\n',
            'agents/bad_spec.yaml': 'model: test\ninstructions: [1, {nested: true}]\n',
        }
    )
    snapshot = Catalog([], project.root).scan()
    assert slugs(snapshot) == ['agents.good.good']
    by_module = {problem.module or problem.file: problem for problem in snapshot.problems}
    broken = by_module['agents.broken']
    assert broken.kind == 'import_error' and broken.exception == 'ZeroDivisionError'
    assert broken.file == str(project.root / 'agents' / 'broken.py')
    assert 'agents/broken.py", line 7, in helper' in broken.traceback
    assert '<frozen importlib' not in broken.traceback and 'synapse_agents' not in broken.traceback
    assert by_module['agents.exits'].exception == 'SystemExit'
    assert by_module['agents.syntax'].exception == 'SyntaxError'
    spec = by_module[str(project.root / 'agents' / 'bad_spec.yaml')]
    assert spec.kind == 'spec_error' and spec.traceback


# -- slugs --------------------------------------------------------------------------------


def test_slugs_are_unique_url_safe_and_resolve_through_the_snapshot(project: FixtureProject) -> None:
    project.write(
        {
            'agents/support.py': """
                from pydantic_ai import Agent

                support_agent = Agent('test', name='Support Agent')
                alias = support_agent
            """,
            'agents/support.yaml': 'model: test\nname: spec\n',
            'agents/café.py': AGENT.format(name='menu_agent', text='Unicode file name.'),
        }
    )
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    assert slugs(snapshot) == ['agents.caf.menu-agent', 'agents.support.support-agent', 'agents.support.yaml']
    for found in snapshot.agents:
        assert all(ch.isalnum() or ch in '._-' for ch in found.slug)
        assert snapshot.get(found.slug) is found
    assert snapshot.get('agents.support.alias') is None
    assert snapshot.get('agents.support') is None
    assert snapshot.get('agents.support.support-agent').name == 'Support Agent'  # type: ignore[union-attr]


def test_colliding_slugs_get_numbered_by_sort_order(project: FixtureProject) -> None:
    project.write(
        {
            'agents/b/x.py': AGENT.format(name='yaml', text='A module agent named yaml.'),
            'agents/b/x.yaml': 'model: test\nname: spec\n',
        }
    )
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    # (module, attribute) order: 'agents.b.x' < 'agents/b/x.yaml', so the spec is numbered
    assert slugs(snapshot) == ['agents.b.x.yaml', 'agents.b.x.yaml-2']
    assert snapshot.get('agents.b.x.yaml-2').name == 'spec'  # type: ignore[union-attr]


# -- hot reload ---------------------------------------------------------------------------


def test_edits_show_on_the_next_scan_and_unchanged_modules_are_not_imported_again(
    project: FixtureProject,
) -> None:
    project.write(
        {
            'agents/support.py': AGENT.format(name='support_agent', text='First.'),
            'agents/billing.py': AGENT.format(name='billing_agent', text='Billing.'),
        },
        log_imports=True,
    )
    catalog = Catalog([], project.root)
    first = catalog.scan()
    assert sorted(project.imports()) == ['agents.billing', 'agents.support']
    assert catalog.scan() is first and catalog.rebuilds == 1  # warm: nothing imported, same snapshot

    project.write(
        {
            'agents/support.py': """
                from pydantic_ai import Agent

                support_agent = Agent('test', instructions='Second.')
                triage_agent = Agent('test')


                @support_agent.tool_plain
                def lookup_order(order_id: str) -> str:
                    '''Find an order.'''
                    return order_id
            """
        },
        log_imports=True,
    )
    second = catalog.scan()
    assert project.imports()[2:] == ['agents.support']  # billing was not run again
    support = second.get('agents.support.support-agent')
    assert support is not None and support.info.instructions[0].text == 'Second.'
    assert [tool.name for tool in support.info.tools] == ['lookup_order']
    assert 'agents.support.triage-agent' in slugs(second)
    assert second.get('agents.billing.billing-agent').agent is first.get('agents.billing.billing-agent').agent  # type: ignore[union-attr]

    project.write({'agents/support.py': AGENT.format(name='support_agent', text='Third.')})
    third = catalog.scan()
    assert 'agents.support.triage-agent' not in slugs(third)


def test_added_and_removed_files_and_a_fixed_import_error(project: FixtureProject) -> None:
    project.write(
        {'agents/a.py': AGENT.format(name='a', text='A.'), 'agents/b.py': 'import agent_helper_missing\n'}
    )
    catalog = Catalog([], project.root)
    assert slugs(catalog.scan()) == ['agents.a.a']
    assert [p.module for p in catalog.scan().problems] == ['agents.b']

    project.write({'agents/nested/c.py': AGENT.format(name='c', text='C.')})
    assert slugs(catalog.scan()) == ['agents.a.a', 'agents.nested.c.c']

    (project.root / 'agents' / 'a.py').unlink()
    project.write({'agents/b.py': AGENT.format(name='b', text='Fixed.')})
    snapshot = catalog.scan()
    assert slugs(snapshot) == ['agents.b.b', 'agents.nested.c.c']
    assert snapshot.problems == []


def test_editing_a_dependency_reloads_the_agents_that_import_it(project: FixtureProject) -> None:
    project.write(
        {
            'agents/prompts.py': 'TEXT = "old prompt"\n',
            'agents/uses_prompt.py': """
                from pydantic_ai import Agent
                from agents.prompts import TEXT

                agent = Agent('test', instructions=TEXT)
            """,
            'agents/unrelated.py': AGENT.format(name='other', text='Other.'),
        },
        log_imports=True,
    )
    catalog = Catalog([], project.root)
    catalog.scan()
    before = len(project.imports())
    project.write({'agents/prompts.py': 'TEXT = "new prompt!"\n'}, log_imports=True)
    snapshot = catalog.scan()
    found = snapshot.get('agents.uses_prompt.agent')
    assert found is not None and found.info.instructions[0].text == 'new prompt!'
    assert sorted(project.imports()[before:]) == ['agents.prompts', 'agents.uses_prompt']


def test_an_edit_that_keeps_size_and_second_is_still_seen(project: FixtureProject) -> None:
    path = project.root / 'agents' / 'same.py'
    project.write({'agents/same.py': AGENT.format(name='agent', text='AAAA')})
    catalog = Catalog([], project.root)
    catalog.scan()
    original = path.stat().st_mtime_ns
    path.write_text(path.read_text().replace('AAAA', 'BBBB'))
    os.utime(path, ns=(original + 1, original + 1))  # same size, same second: bytecode looks valid
    found = catalog.scan().get('agents.same.agent')
    assert found is not None and found.info.instructions[0].text == 'BBBB'


def test_concurrent_scans_are_safe_and_import_once(project: FixtureProject) -> None:
    project.write(
        {f'agents/m{i}.py': AGENT.format(name=f'a{i}', text=str(i)) for i in range(6)}, log_imports=True
    )
    catalog = Catalog([], project.root)
    results: list[CatalogSnapshot] = []
    threads = [threading.Thread(target=lambda: results.append(catalog.scan())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(snapshot) for snapshot in results}) == 1
    assert sorted(project.imports()) == [f'agents.m{i}' for i in range(6)]
    assert catalog.rebuilds == 1


def test_editing_the_deps_factory_module_reloads_the_agent(project: FixtureProject) -> None:
    project.write(
        {
            'agents/deps.py': 'def make_deps():\n    return {"tenant": "old"}\n',
            'agents/billing.py': """
                from pydantic_ai import Agent

                FACTORY = 'agents.deps:make_deps'
                billing = Agent('test', deps_type=dict, metadata={'synapse.deps_factory': FACTORY})
            """,
        }
    )
    catalog = Catalog(['agents/billing.py'], project.root)
    first = catalog.scan().get('agents.billing.billing')
    assert first is not None and first.deps_factory is not None and first.deps_factory() == {'tenant': 'old'}
    project.write({'agents/deps.py': 'def make_deps():\n    return {"tenant": "new one"}\n'})
    second = catalog.scan().get('agents.billing.billing')
    assert second is not None and second.agent is not first.agent
    assert second.deps_factory is not None and second.deps_factory() == {'tenant': 'new one'}


def test_fixing_a_broken_dependency_outside_the_scanned_folder_is_noticed(project: FixtureProject) -> None:
    project.write(
        {
            'lib/__init__.py': '',
            'lib/prompts.py': 'TEXT = "fine"\n',
            'agents/bot.py': """
                from pydantic_ai import Agent
                from lib.prompts import TEXT

                bot = Agent('test', instructions=TEXT)
            """,
        }
    )
    catalog = Catalog(['agents'], project.root)
    assert catalog.scan().problems == []
    project.write({'lib/prompts.py': 'TEXT = (\n'})
    broken = catalog.scan()
    assert [p.exception for p in broken.problems] == ['SyntaxError'] and broken.agents == []
    project.write({'lib/prompts.py': 'TEXT = "fixed"\n'})
    fixed = catalog.scan()
    assert fixed.problems == []
    assert fixed.get('agents.bot.bot').info.instructions[0].text == 'fixed'  # type: ignore[union-attr]


def test_an_unusable_target_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    snapshot = Catalog(['agents\x00/broken', 'synapse_agents.demo'], tmp_path).scan()
    assert [problem.kind for problem in snapshot.problems] == ['target_not_found']
    assert 'null byte' in snapshot.problems[0].message
    assert any(agent.name == 'support_agent' for agent in snapshot.agents)
