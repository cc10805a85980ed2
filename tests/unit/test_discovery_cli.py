"""`synapse agents`: the table, the JSON, --demo and --env-file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.cli import app

runner = CliRunner()


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env)


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={'COLUMNS': '220'})
    return result.exit_code, result.output


def test_table_lists_agents_and_problems(project: FixtureProject) -> None:
    project.write(
        {
            'agents/support.py': """
                from pydantic_ai import Agent

                support_agent = Agent('openai:gpt-4o', metadata={'synapse.stateless': True})


                @support_agent.tool_plain
                def lookup_order(order_id: str) -> str:
                    '''Find an order.'''
                    return order_id
            """,
            'agents/broken.py': "from pydantic_ai import Agent\nraise KeyError('agent_config')\n",
        }
    )
    code, output = invoke('agents')
    assert code == 0, output
    assert '1 agent in ./agents' in output
    assert 'agents.support.support-agent' in output and 'openai:gpt-4o' in output and 'lookup_order' in output
    assert 'stateless' in output and 'Set OPENAI_API_KEY' in output
    assert '1 discovery problem\n' in output and 'KeyError' in output and 'broken.py' in output
    assert 'Traceback' not in output
    code, output = invoke('agents', '--tracebacks')
    assert 'Traceback (most recent call last)' in output


def test_targets_demo_and_json(project: FixtureProject) -> None:
    project.write({'bots/echo.py': "from pydantic_ai import Agent\necho = Agent('test')\n"})
    code, output = invoke('agents', 'bots', '--demo', '--json')
    assert code == 0, output
    body = json.loads(output)
    assert body['targets'] == ['bots', 'synapse_agents.demo']
    slugs = [card['slug'] for card in body['agents']]
    assert slugs[0] == 'bots.echo.echo' and 'synapse_agents.demo.agents.support-agent' in slugs


def test_env_file_is_loaded_before_agents_are_imported(project: FixtureProject) -> None:
    project.write(
        {
            'agents/support.py': "from pydantic_ai import Agent\nsupport = Agent('openai:gpt-4o')\n",
            'keys.env': 'OPENAI_API_KEY=sk-test-not-real\n',
        }
    )
    code, output = invoke('agents', '--json')
    assert json.loads(output)['agents'][0]['problems'][0]['env_var'] == 'OPENAI_API_KEY'
    code, output = invoke('agents', '--env-file', 'keys.env', '--json')
    assert code == 0, output
    assert json.loads(output)['agents'][0]['problems'] == []


def test_no_agents_found(project: FixtureProject) -> None:
    code, output = invoke('agents')
    assert code == 0 and 'No agents found in .' in output


def test_json_stays_valid_when_an_imported_module_prints(project: FixtureProject) -> None:
    """What an agent module prints at import goes to stderr; stdout is the JSON alone."""
    project.write(
        {
            'noisy.py': """
                from pydantic_ai import Agent

                print('loading the noisy agents...')
                noisy_agent = Agent('test', name='noisy')
                print('done')
            """
        }
    )
    result = runner.invoke(app, ['agents', 'noisy', '--json'], env={'COLUMNS': '220'})
    assert result.exit_code == 0, result.output
    assert [agent['name'] for agent in json.loads(result.stdout)['agents']] == ['noisy']
    assert 'loading the noisy agents...' in result.stderr
