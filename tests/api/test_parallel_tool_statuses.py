"""Parallel tool calls where one fails: the stream and the stored thread agree on every call's
status (the live cards are what a reload shows)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chat_helpers import decode
from fixtures.projects import FixtureProject

PROJECT = """
import asyncio

from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import ToolReturnPart, RetryPromptPart
from pydantic_ai.models.function import DeltaToolCall, FunctionModel


async def stream(messages, info):
    last = messages[-1].parts
    if any(isinstance(p, (ToolReturnPart, RetryPromptPart)) for p in last):
        yield 'after the tools'
        return
    mode = [p.content for p in last if getattr(p, 'part_kind', '') == 'user-prompt'][0]
    yield {0: DeltaToolCall(name='fine', json_args='{}', tool_call_id='call_fine')}
    yield {1: DeltaToolCall(name=mode, json_args='{}', tool_call_id='call_bad')}
    yield {2: DeltaToolCall(name='slow_fine', json_args='{}', tool_call_id='call_slow')}


parallel = Agent(FunctionModel(stream_function=stream, model_name='parallel'), name='parallel', retries=0)


@parallel.tool_plain
async def fine() -> str:
    # Async and awaiting nothing: it ends in its task's first step, before the failing call (run in a
    # worker thread) can cancel the others. A sync `fine` raced that thread and was sometimes cut.
    return 'ok'


@parallel.tool_plain
async def slow_fine() -> str:
    await asyncio.sleep(0.2)
    return 'ok later'


@parallel.tool_plain
def raises() -> str:
    raise LookupError('no such order')


@parallel.tool_plain
def retries() -> str:
    raise ModelRetry('try again')
"""


def live_statuses(chunks: list[Any]) -> dict[str, str]:
    statuses: dict[str, str] = {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        kind, call = chunk.get('type'), str(chunk.get('toolCallId'))
        if kind == 'tool-input-start':
            statuses[call] = 'pending'
        elif kind == 'tool-output-available':
            statuses[call] = 'success'
        elif kind in ('tool-output-error', 'tool-input-error'):
            statuses[call] = 'error'
        elif kind == 'data-tool-status':
            statuses[chunk['data']['tool_call_id']] = chunk['data']['status']
    return statuses


@pytest.mark.parametrize('mode', ['raises', 'retries'])
def test_live_and_stored_tool_statuses_agree(
    client_for: Callable[..., TestClient], isolated_env: Path, mode: str
) -> None:
    project = FixtureProject(isolated_env).write({'agents/parallel.py': PROJECT})
    client = client_for([], project.root)
    response = client.post('/api/agents/agents.parallel.parallel/chat', data={'message': mode})
    chunks = decode(response.text)
    live = live_statuses(chunks)
    conversation_id = chunks[0]['messageMetadata']['conversation_id']
    thread = client.get(f'/api/conversations/{conversation_id}').json()
    ids = {call: call for call in live}
    stored = {
        part['tool']['name']: part['tool']['status']
        for message in thread['messages']
        for part in message.get('parts') or []
        if part['type'] == 'tool'
    }
    names = {'call_fine': 'fine', 'call_bad': mode, 'call_slow': 'slow_fine'}
    live = {names[ids[call]]: status for call, status in live.items()}
    assert live == stored, (live, stored)
    assert stored['fine'] == 'success' and stored[mode] == 'error'
