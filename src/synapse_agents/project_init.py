"""`synapse init`: a commented [tool.synapse] section and, when missing, an example agent."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .settings import Settings

EXAMPLE_AGENT = '''"""An example agent. Synapse lists every module-level pydantic_ai.Agent it finds here."""

from pydantic_ai import Agent

# No model is set, so the Synapse playground runs it on the model picked in its selector
# (the offline demo model by default). Give it a real one, e.g. Agent('openai:gpt-5.2', ...),
# and put the provider's key (OPENAI_API_KEY) in the project's .env.
assistant = Agent(
    name='assistant',
    instructions='You are a concise, friendly assistant.',
)


@assistant.tool_plain
def word_count(text: str) -> int:
    """Count the words in a piece of text."""
    return len(text.split())
'''


def pyproject_section() -> str:
    """The [tool.synapse] table with every setting commented out, from the settings registry."""
    lines = ['[tool.synapse]', '# Every setting can also be set as SYNAPSE_<NAME> in the environment.']
    for name, field in Settings.model_fields.items():
        if name == 'token':
            continue  # a secret belongs in the environment, never in a committed file
        value = field.get_default(call_default_factory=True)
        if value is None and field.examples:
            value = field.examples[0]
        lines.append(f'# {field.description}')
        lines.append(f'# {name} = {_toml_value(value)}')
    return '\n'.join(lines) + '\n'


def _toml_value(value: object) -> str:
    if value is None:
        return '""'
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return '[' + ', '.join(_toml_value(v) for v in value) + ']'
    return '"' + str(value).replace('\\', '\\\\').replace('"', '\\"') + '"'


def init_project(root: Path) -> list[str]:
    """Set up `root` for Synapse; returns one line per thing done (or left alone)."""
    done: list[str] = []
    pyproject = root / 'pyproject.toml'
    if pyproject.exists():
        text = pyproject.read_text(encoding='utf-8')
        data = tomllib.loads(text)
        if 'synapse' in data.get('tool', {}) or '[tool.synapse]' in text:
            done.append(f'{pyproject.name} already has a [tool.synapse] section; left as it is.')
        else:
            separator = '' if text.endswith('\n\n') else ('\n' if text.endswith('\n') else '\n\n')
            pyproject.write_text(text + separator + pyproject_section(), encoding='utf-8')
            done.append(f'Added a commented [tool.synapse] section to {pyproject.name}.')
    else:
        pyproject.write_text(pyproject_section(), encoding='utf-8')
        done.append('Created pyproject.toml with a commented [tool.synapse] section.')

    agents_dir = root / 'agents'
    if agents_dir.exists():
        done.append('agents/ already exists; no example agent written.')
    else:
        agents_dir.mkdir()
        (agents_dir / 'assistant.py').write_text(EXAMPLE_AGENT, encoding='utf-8')
        done.append('Created agents/assistant.py with an example agent.')
    done.append('Next: synapse serve')
    return done
