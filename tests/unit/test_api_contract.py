"""The API contract files are up to date: `frontend/openapi.json` is what the app generates now, and
`frontend/src/lib/api/schema.gen.ts` is what openapi-typescript makes of it (`make api-types`
regenerates both). The generator runs from `frontend/node_modules` (`npm ci` in frontend/)."""

from __future__ import annotations

import difflib
import json
import shlex
import subprocess
from pathlib import Path

from synapse_agents.web.app import openapi_json

ROOT = Path(__file__).resolve().parents[2]
FRONTEND = ROOT / 'frontend'
DOCUMENT = FRONTEND / 'openapi.json'
TYPES = FRONTEND / 'src' / 'lib' / 'api' / 'schema.gen.ts'
GENERATOR = FRONTEND / 'node_modules' / '.bin' / 'openapi-typescript'
STALE = 'out of date: run `make api-types` and commit the result'


def difference(committed: str, current: str, name: str) -> str:
    """The first lines of a unified diff, for the failure message."""
    lines = difflib.unified_diff(
        committed.splitlines(), current.splitlines(), f'{name} (committed)', f'{name} (now)', lineterm=''
    )
    return '\n'.join(list(lines)[:40])


def test_the_committed_openapi_document_is_what_the_app_generates() -> None:
    """Changing a response model, a route or a description without regenerating the file fails."""
    assert DOCUMENT.is_file(), f'{DOCUMENT} is missing: run `make api-types`'
    committed = DOCUMENT.read_text(encoding='utf-8')
    current = openapi_json()
    assert committed == current, f'{DOCUMENT.name} is {STALE}\n' + difference(
        committed, current, 'openapi.json'
    )


def test_every_schema_has_a_name_of_its_own() -> None:
    """Two response models of one name in two modules get their module path as a name, which the
    dashboard's types then have to spell: each name is given once."""
    names = json.loads(openapi_json())['components']['schemas']
    assert [name for name in names if name.startswith('synapse_agents__')] == []


def test_the_document_names_every_history_answer() -> None:
    """The history routes document the models they return (the generated types depend on it)."""
    document = json.loads(openapi_json())
    responses = {
        (path, method): (status, answer['content']['application/json']['schema'])
        for path, item in document['paths'].items()
        for method, operation in item.items()
        if path.startswith(('/api/conversations', '/api/tool-invocations'))
        for status, answer in operation['responses'].items()
        if status.startswith('2')
    }
    schemas = '#/components/schemas/'
    assert responses == {
        ('/api/conversations', 'get'): ('200', {'$ref': schemas + 'ConversationPage'}),
        ('/api/conversations/{conversation_id}', 'get'): ('200', {'$ref': schemas + 'Thread'}),
        ('/api/conversations/{conversation_id}', 'patch'): ('200', {'$ref': schemas + 'ConversationRow'}),
        ('/api/conversations/{conversation_id}', 'delete'): ('200', {'$ref': schemas + 'Deleted'}),
        ('/api/conversations/{conversation_id}/fork', 'post'): ('201', {'$ref': schemas + 'ConversationRow'}),
        ('/api/conversations/clear', 'post'): ('200', {'$ref': schemas + 'Deleted'}),
        ('/api/conversations/{conversation_id}/privacy', 'get'): ('200', {'$ref': schemas + 'PrivacyStatus'}),
        ('/api/conversations/{conversation_id}/privacy', 'put'): ('200', {'$ref': schemas + 'PrivacyStatus'}),
        ('/api/conversations/{conversation_id}/privacy/values', 'get'): (
            '200',
            {'$ref': schemas + 'RevealedValues'},
        ),
        ('/api/tool-invocations/{tool_id}', 'get'): ('200', {'$ref': schemas + 'ToolInvocationFull'}),
    }


def generator_command(output: Path) -> list[str]:
    """The package's `api-types` script, writing to `output` instead of schema.gen.ts."""
    script = json.loads((FRONTEND / 'package.json').read_text(encoding='utf-8'))['scripts']['api-types']
    program, *args = shlex.split(script)
    assert program == 'openapi-typescript', script
    assert args[args.index('-o') + 1] == str(TYPES.relative_to(FRONTEND)), script
    args[args.index('-o') + 1] = str(output)
    return [str(GENERATOR), *args]


def test_the_committed_typescript_is_what_the_generator_makes(tmp_path: Path) -> None:
    """Editing schema.gen.ts by hand, or the document without regenerating the types, fails."""
    assert GENERATOR.is_file(), f'{GENERATOR} is missing: run `npm ci` in frontend/'
    output = tmp_path / 'schema.gen.ts'
    subprocess.run(
        generator_command(output),
        cwd=FRONTEND,
        check=True,
        capture_output=True,
        timeout=120,
    )
    committed = TYPES.read_text(encoding='utf-8')
    current = output.read_text(encoding='utf-8')
    assert committed == current, f'{TYPES.name} is {STALE}\n' + difference(committed, current, TYPES.name)


def test_the_dashboard_build_generates_the_types_from_the_committed_document() -> None:
    """`npm run build` regenerates schema.gen.ts from openapi.json, with no Python involved."""
    scripts = json.loads((FRONTEND / 'package.json').read_text(encoding='utf-8'))['scripts']
    assert 'openapi.json' in shlex.split(scripts['api-types'])
    assert scripts['build'].startswith('npm run api-types && ')
    assert 'python' not in scripts['build']
