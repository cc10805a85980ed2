"""One model id for every front door: `demo`, a registry model's key or a pydantic-ai model string.

The Python API's `model=` override resolves a registry model (a model of a provider configured in
the registry) the way a configured agent's preset does; here the provider is an OpenAI-compatible
server on this machine, on every selected database.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pydantic_ai.models
import pytest
from pydantic_ai import Agent
from sqlalchemy import text

from synapse_agents import Synapse
from synapse_agents.registry.tables import Provider, RegistryModel

pytestmark = pytest.mark.anyio


class LocalLlama(BaseHTTPRequestHandler):
    """Streams one chat completion like an OpenAI-compatible server, recording what it was asked."""

    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers['content-length'])))
        self.seen.append({'path': self.path, **body})
        chunks: list[dict[str, Any]] = [
            {'choices': [{'index': 0, 'delta': {'role': 'assistant', 'content': 'local '}}]},
            {'choices': [{'index': 0, 'delta': {'content': 'answer'}, 'finish_reason': 'stop'}]},
            {'choices': [], 'usage': {'prompt_tokens': 7, 'completion_tokens': 2, 'total_tokens': 9}},
        ]
        base = {'id': 'chatcmpl-1', 'object': 'chat.completion.chunk', 'created': 1, 'model': body['model']}
        payload = ''.join(f'data: {json.dumps({**base, **chunk})}\n\n' for chunk in chunks)
        data = (payload + 'data: [DONE]\n\n').encode()
        self.send_response(200)
        self.send_header('content-type', 'text/event-stream')
        self.send_header('content-length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def local_llama(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An OpenAI-compatible server on a loopback port; its base URL (model requests allowed)."""
    monkeypatch.setattr(pydantic_ai.models, 'ALLOW_MODEL_REQUESTS', True)
    LocalLlama.seen = []
    server = ThreadingHTTPServer(('127.0.0.1', 0), LocalLlama)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f'http://127.0.0.1:{server.server_port}/v1'
    server.shutdown()
    server.server_close()


async def test_a_registry_model_key_overrides_the_model_in_the_python_api(
    database_url: str, local_llama: str
) -> None:
    agent: Agent[None, str] = Agent('test', name='plain')
    async with Synapse(database_url=database_url, agents=[]) as syn:
        store = syn.runtime.store
        with store.write() as session:
            session.add(Provider(key='local-llama', kind='openai-compatible', base_url=local_llama))
            session.add(
                RegistryModel(key='local-llama:llama3.2', provider_key='local-llama', name='llama3.2')
            )
        conv = await syn.conversation(agent, model='local-llama:llama3.2')
        reply = await conv.send('Hello')
        with store.read() as session:
            sql = text('SELECT model FROM llm_calls WHERE conversation_id = :id')
            models = list(session.scalars(sql, {'id': reply.conversation_id}))
    assert reply.output == 'local answer'
    assert reply.model == 'llama3.2'
    [request] = LocalLlama.seen
    assert request['path'] == '/v1/chat/completions' and request['model'] == 'llama3.2'
    assert models == ['llama3.2']


async def test_an_unknown_model_id_names_the_three_kinds(database_url: str) -> None:
    agent: Agent[None, str] = Agent('test', name='plain')
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent, model='nowhere-at-all')
        with pytest.raises(Exception, match='neither a registry model nor a pydantic-ai model id'):
            await conv.send('Hello')
