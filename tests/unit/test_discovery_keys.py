"""Agents whose provider key is missing are discovered, inspectable, and marked with the variable."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pydantic_ai.models
import pytest
from pydantic_ai.exceptions import UserError

from fixtures.projects import FixtureProject, isolated_imports
from synapse_agents.discovery import Catalog
from synapse_agents.discovery.keys import PLACEHOLDER_PREFIX

KEYED = """
from pydantic_ai import Agent

support_agent = Agent('openai:gpt-4o', instructions='Help customers.', model_settings={'temperature': 0.3})


@support_agent.tool_plain
def lookup_order(order_id: str) -> str:
    '''Find an order by id.'''
    return order_id


claude = Agent('anthropic:claude-sonnet-4-5')
later = Agent('openai:gpt-4o-mini', defer_model_check=True)
offline = Agent('test')
"""

EXPLICIT = """
from pydantic_ai import Agent
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

both = Agent(FallbackModel('openai:gpt-4o', 'anthropic:claude-sonnet-4-5'))
chat = Agent(OpenAIChatModel('gpt-4o', provider=OpenAIProvider()))
fine = Agent('test')
"""


def in_thread(call: Callable[[], object]) -> BaseException | None:
    """Run `call` in a fresh thread (no event loop of a browser test in the way); its exception."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return errors[0] if errors else None


@pytest.fixture
def project(isolated_env: Path) -> Iterator[FixtureProject]:
    with isolated_imports(isolated_env.parent):
        yield FixtureProject(isolated_env)


def test_agent_named_by_model_id_is_discovered_and_marked_with_its_variable(project: FixtureProject) -> None:
    project.write({'agents/keyed.py': KEYED})
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    support = snapshot.get('agents.keyed.support-agent')
    assert support is not None
    assert support.missing_env == 'OPENAI_API_KEY'
    problem = support.info.problems[0]
    assert (problem.code, problem.env_var) == ('missing_api_key', 'OPENAI_API_KEY')
    assert (
        'Set OPENAI_API_KEY' in problem.message
        and '.env' in problem.message
        and 'demo model' in problem.message
    )
    # Fully inspectable all the same.
    assert support.info.model is not None
    assert (support.info.model.provider, support.info.model.name, support.info.model.id) == (
        'openai',
        'gpt-4o',
        'openai:gpt-4o',
    )
    assert support.info.model_settings == {'temperature': 0.3}
    assert [tool.name for tool in support.info.tools] == ['lookup_order']
    assert snapshot.get('agents.keyed.claude').missing_env == 'ANTHROPIC_API_KEY'  # type: ignore[union-attr]
    assert snapshot.get('agents.keyed.later').missing_env == 'OPENAI_API_KEY'  # type: ignore[union-attr]
    assert snapshot.get('agents.keyed.offline').missing_env is None  # type: ignore[union-attr]
    # The agent holds its model name, like `defer_model_check=True`: running it says what to set.
    assert support.agent.model == 'openai:gpt-4o'
    error = in_thread(lambda: support.agent.run_sync('hello'))
    assert isinstance(error, UserError) and 'Set the `OPENAI_API_KEY` environment variable' in str(error)
    assert 'OPENAI_API_KEY' not in os.environ


def test_outside_discovery_pydantic_ai_behaves_as_usual(project: FixtureProject) -> None:
    project.write({'agents/keyed.py': KEYED})
    Catalog([], project.root).scan()
    with pytest.raises(UserError, match='OPENAI_API_KEY'):
        pydantic_ai.models.infer_model('openai:gpt-4o')
    assert isinstance(in_thread(lambda: pydantic_ai.models.infer_model('openai:gpt-4o')), UserError)


def test_models_built_in_user_code_are_imported_again_with_a_placeholder(project: FixtureProject) -> None:
    project.write({'agents/explicit.py': EXPLICIT}, log_imports=True)
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    both = snapshot.get('agents.explicit.both')
    chat = snapshot.get('agents.explicit.chat')
    assert both is not None and chat is not None
    assert both.missing_env == 'OPENAI_API_KEY'  # the primary's variable first
    assert both.info.model is not None and both.info.model.fallbacks == ['anthropic:claude-sonnet-4-5']
    assert chat.missing_env == 'OPENAI_API_KEY'
    assert snapshot.get('agents.explicit.fine').missing_env is None  # type: ignore[union-attr]
    assert not any(value.startswith(PLACEHOLDER_PREFIX) for value in os.environ.values())
    assert project.imports() == ['agents.explicit']  # the failed attempts did not get far enough to log


def test_a_key_added_to_the_env_file_is_picked_up_on_the_next_scan(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    project.write(
        {
            'agents/keyed.py': KEYED,
            'agents/explicit.py': EXPLICIT.replace("'anthropic:claude-sonnet-4-5'", "'openai:gpt-4o-mini'"),
        }
    )
    catalog = Catalog([], project.root, env_files=[project.root / '.env'])
    first = catalog.scan()
    assert first.get('agents.keyed.support-agent').missing_env == 'OPENAI_API_KEY'  # type: ignore[union-attr]
    old_fallback = first.get('agents.explicit.both').agent  # type: ignore[union-attr]

    project.write({'.env': 'OPENAI_API_KEY=sk-test-not-real\n'})
    second = catalog.scan()
    assert os.environ['OPENAI_API_KEY'] == 'sk-test-not-real'
    support = second.get('agents.keyed.support-agent')
    assert support is not None and support.missing_env is None and support.info.problems == []
    both = second.get('agents.explicit.both')
    assert both is not None and both.missing_env is None
    assert both.agent is not old_fallback  # imported again, now with the real key
    assert catalog.scan() is second


def test_an_already_set_key_builds_the_real_model(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('OPENAI_API_KEY', 'sk-test-not-real')
    project.write({'agents/keyed.py': KEYED})
    support = Catalog([], project.root).scan().get('agents.keyed.support-agent')
    assert support is not None and support.missing_env is None
    assert type(support.agent.model).__name__ == 'OpenAIResponsesModel'


def test_spec_file_with_a_missing_key(project: FixtureProject) -> None:
    project.write({'agents/writer.yaml': 'model: openai:gpt-4o\nname: writer\ninstructions: Write well.\n'})
    snapshot = Catalog([], project.root).scan()
    assert snapshot.problems == []
    writer = snapshot.get('agents.writer.yaml')
    assert writer is not None and writer.missing_env == 'OPENAI_API_KEY'
    assert writer.info.instructions[0].text == 'Write well.'


def test_a_provider_whose_package_is_missing_says_what_to_install(
    project: FixtureProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The groq SDK made absent (importing it raises ImportError), wherever the suite runs.
    monkeypatch.setitem(sys.modules, 'groq', None)
    for module in ('pydantic_ai.providers.groq', 'pydantic_ai.models.groq'):
        monkeypatch.delitem(sys.modules, module, raising=False)
    project.write(
        {'agents/fast.py': "from pydantic_ai import Agent\nfast = Agent('groq:llama-3.3-70b-versatile')\n"}
    )
    fast = Catalog([], project.root).scan().get('agents.fast.fast')
    assert fast is not None and fast.missing_env is None
    assert fast.info.problems[0].code == 'provider_unavailable'
    assert 'pip install' in fast.info.problems[0].message
