"""`synapse traces` through Typer's runner, on trees recorded by real traced runs, on every database."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
import typer
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from typer.testing import CliRunner, Result

from synapse_agents.chat.engine import ChatEngine
from synapse_agents.chat.request import TurnRequest
from synapse_agents.events import TurnFinished
from synapse_agents.store import Store
from synapse_agents.store.write_queue import WriteQueue
from synapse_agents.targets.target import TurnTarget
from synapse_agents.traces.cli import traces_app

runner = CliRunner()


def _answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse([TextPart('forty-two')])


inner = Agent(FunctionModel(_answer, model_name='inner-model'), name='inner')


async def _outer_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    returned = any(getattr(part, 'part_kind', '') == 'tool-return' for m in messages for part in m.parts)
    if not returned:
        yield {0: DeltaToolCall(name='ask', json_args='{"question": "meaning"}', tool_call_id='call-1')}
        return
    yield 'The answer is forty-two.'


outer = Agent(FunctionModel(stream_function=_outer_stream, model_name='outer-model'), name='outer')


@outer.tool_plain
async def ask(question: str) -> str:
    """Ask the inner agent (a run Synapse did not start: a `direct` child of this tool)."""
    result = await inner.run(question)
    return result.output


async def _broken_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    raise RuntimeError('model down')
    yield ''  # pragma: no cover - makes this an async generator


broken = Agent(FunctionModel(stream_function=_broken_stream, model_name='broken-model'), name='broken')


def command_line() -> typer.Typer:
    """The sub-app as `synapse` registers it."""
    cli = typer.Typer()
    cli.add_typer(traces_app, name='traces')
    return cli


def invoke(*args: str) -> Result:
    result = runner.invoke(command_line(), ['traces', *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def lines(output: str) -> list[str]:
    return [' '.join(line.replace('│', ' ').replace('┃', ' ').split()) for line in output.splitlines()]


async def _turns(store: Store) -> dict[str, str]:
    """One playground turn of `outer` (a tool runs `inner`) and one of `broken`; their run ids."""
    writes = WriteQueue(store)
    try:
        engine = ChatEngine(store, writes)
        found: dict[str, str] = {}
        for slug, agent in (('app.outer', outer), ('app.broken', broken)):
            prepared = await engine.prepare(
                TurnRequest(TurnTarget.for_agent(agent, slug=slug), 'What is it?')
            )
            async for event in engine.stream(prepared):
                if isinstance(event, TurnFinished):
                    found[slug] = event.run_id
        await writes.drain()
    finally:
        writes.close()
    return found


@pytest.fixture
def runs(store: Store, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Two recorded trees; the CLI's settings point at the test's database, with wide tables."""
    monkeypatch.setenv('SYNAPSE_DATABASE_URL', store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv('COLUMNS', '250')
    return anyio.run(_turns, store)


def tree_json(run_id: str) -> dict[str, Any]:
    result = invoke('show', run_id, '--json')
    assert result.exit_code == 0, result.output
    root: dict[str, Any] = json.loads(result.stdout)['root']
    return root


def test_list_shows_every_root_newest_first(runs: dict[str, str]) -> None:
    result = invoke('list')
    assert result.exit_code == 0, result.output
    shown = lines(result.stdout)
    rows = [line for line in shown if line.endswith((runs['app.outer'], runs['app.broken']))]
    assert len(rows) == 2, shown  # the nested run of `inner` is not a root
    assert rows[0].endswith(runs['app.broken']) and ' app.broken ephemeral error broken-model ' in rows[0]
    assert ' app.outer ephemeral ok outer-model ' in rows[1] and ' unpriced ' in rows[1]
    assert 'Started Agent Origin Status Model Tokens Cost Took Run id' in shown


def test_list_filters_and_pages(runs: dict[str, str]) -> None:
    only_errors = invoke('list', '--errors')
    assert only_errors.exit_code == 0 and runs['app.broken'] in only_errors.stdout
    assert runs['app.outer'] not in only_errors.stdout
    by_agent = invoke('list', '--agent', 'app.outer')
    assert runs['app.outer'] in by_agent.stdout and runs['app.broken'] not in by_agent.stdout
    assert invoke('list', '--origin', 'code').stdout.strip() == 'No traces.'
    first = json.loads(invoke('list', '--limit', '1', '--json').stdout)
    assert [root['agent_run_id'] for root in first['roots']] == [runs['app.broken']]
    assert first['next_before'] == runs['app.broken']
    rest = json.loads(invoke('list', '--before', first['next_before'], '--json').stdout)
    assert [root['agent_run_id'] for root in rest['roots']] == [runs['app.outer']]
    assert rest['next_before'] is None
    (root,) = rest['roots']
    assert root['model_calls'] == 2 and root['tool_calls'] == 1 and root['cost'] is None
    assert root['status'] == 'ok' and root['origin'] == 'ephemeral' and root['agent_key'] == 'app.outer'


def test_show_prints_the_tree_with_the_nested_run_under_its_tool(runs: dict[str, str]) -> None:
    root = tree_json(runs['app.outer'])
    assert root['kind'] == 'run' and root['name'] == 'outer' and root['model_calls'] == 2
    assert [child['kind'] for child in root['children']] == ['model', 'tool', 'model']
    tool = root['children'][1]
    assert tool['name'] == 'ask' and tool['arguments'] == {'question': 'meaning'}
    (nested,) = tool['children']
    assert nested['kind'] == 'run' and nested['name'] == 'inner' and nested['origin'] == 'direct'
    assert nested['depth'] == 1 and nested['parent_run_id'] == runs['app.outer']
    assert [child['kind'] for child in nested['children']] == ['model']
    result = invoke('show', runs['app.outer'])
    assert result.exit_code == 0, result.output
    text = result.stdout
    order = [
        text.index(f'outer · run {runs["app.outer"]} · ephemeral · outer-model'),
        text.index('tool ask · call-1'),
        text.index(f'inner · run {nested["id"]} · direct · inner-model'),
        text.index(f'model call inner-model · debug {nested["children"][0]["id"]}'),
    ]
    assert order == sorted(order), text
    assert text.count('model call outer-model') == 2 and 'cost unpriced' in text
    inner_line = next(line for line in text.splitlines() if f'run {nested["id"]}' in line)
    outer_line = next(line for line in text.splitlines() if f'run {runs["app.outer"]}' in line)
    assert inner_line.index('inner') > outer_line.index('outer') + 4  # drawn deeper


def test_show_prints_the_error_of_a_failed_run(runs: dict[str, str]) -> None:
    result = invoke('show', runs['app.broken'])
    assert result.exit_code == 0, result.output
    assert ' · error' in result.stdout and 'model down' in result.stdout
    root = tree_json(runs['app.broken'])
    assert root['status'] == 'error' and 'model down' in root['error']


def test_call_prints_what_was_sent_and_what_came_back(runs: dict[str, str]) -> None:
    first_call = tree_json(runs['app.outer'])['children'][0]
    result = invoke('call', first_call['id'])
    assert result.exit_code == 0, result.output
    shown = lines(result.stdout)
    assert shown[0].startswith(f'Model call {first_call["id"]}: outer-model (function), ok, chat_turn')
    assert 'Tools ask' in shown
    assert shown.index('Sent') < shown.index('user: text: What is it?') < shown.index('Came back')
    assert 'assistant: tool call ask({"question": "meaning"})' in shown
    detail = json.loads(invoke('call', first_call['id'], '--json').stdout)
    assert detail['id'] == first_call['id'] and detail['agent_run_id'] == runs['app.outer']
    assert detail['data']['history'][0]['role'] == 'user'
    assert detail['data']['turns'][0]['parts'][0]['name'] == 'ask'


@pytest.mark.parametrize(
    ('args', 'message'),
    [
        (('show', 'no-such-run'), "No trace for run 'no-such-run'."),
        (('show', 'not a run id!'), "No trace for run 'not a run id!'."),
        (('show', 'x' * 100, '--json'), f"No trace for run '{'x' * 60}'… (100 characters)."),
        (
            ('call', '01a232e2-2ac2-7458-97c9-8955810694de'),
            "No model call with id '01a232e2-2ac2-7458-97c9-8955810694de'.",
        ),
        (('call', 'nope'), "No model call with id 'nope'."),
        (
            ('list', '--origin', 'playground'),
            "--origin: 'playground' is not one of direct, code, config, ephemeral, workflow",
        ),
        (('list', '--before', 'a b'), "--before: 'a b' is not a run id"),
    ],
)
def test_unknown_ids_and_bad_options_are_one_line_and_exit_2(
    runs: dict[str, str], args: tuple[str, ...], message: str
) -> None:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == f'Error: {message}', result.stderr
    assert result.stdout == ''
