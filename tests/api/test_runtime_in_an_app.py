"""docs/runtime.md's FastAPI example, run: an app that opens `Synapse` in its lifespan and keeps each
firm's conversations to that firm."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Header, HTTPException
from fastapi.testclient import TestClient
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel

from synapse_agents import Scope, ScopeMismatch, Synapse
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.store import Store


async def _answer(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield f'answer #{sum(1 for m in messages if m.kind == "request")}'


case_agent: Agent[Any, str] = Agent(
    FunctionModel(stream_function=_answer, model_name='case-model'), name='case'
)


class Ask(BaseModel):
    message: str
    conversation_id: str | None = None


def make_app(synapse: Synapse) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with synapse:
            yield

    app = FastAPI(lifespan=lifespan)

    @app.post('/cases/{case_id}/ask')
    async def ask(case_id: str, body: Ask, x_firm: str = Header(), x_user: str = Header()) -> dict[str, Any]:
        try:
            conv = await synapse.conversation(
                case_agent,
                id=body.conversation_id,
                tenant=('firm', x_firm),
                actor=('user', x_user),
                subject=('case', case_id),
            )
        except ScopeMismatch as exc:
            raise HTTPException(404, 'No such conversation.') from exc
        reply = await conv.send(body.message)
        return {'answer': reply.output, 'conversation_id': reply.conversation_id}

    return app


@pytest.fixture
def app_client(database_url: str) -> Iterator[TestClient]:
    with TestClient(make_app(Synapse(database_url=database_url, agents=[]))) as client:
        yield client


def test_each_firm_keeps_its_own_conversations(app_client: TestClient, database_url: str) -> None:
    first = app_client.post('/cases/9/ask', json={'message': 'hi'}, headers={'x-firm': '7', 'x-user': '42'})
    assert first.status_code == 200 and first.json()['answer'] == 'answer #1'
    conversation_id = first.json()['conversation_id']

    # A colleague at the same firm continues it; the history is there.
    second = app_client.post(
        '/cases/9/ask',
        json={'message': 'more', 'conversation_id': conversation_id},
        headers={'x-firm': '7', 'x-user': '43'},
    )
    assert second.json() == {'answer': 'answer #2', 'conversation_id': conversation_id}

    # Another firm, or the same firm about another case, cannot.
    for firm, case in (('8', '9'), ('7', '10')):
        refused = app_client.post(
            f'/cases/{case}/ask',
            json={'message': 'let me in', 'conversation_id': conversation_id},
            headers={'x-firm': firm, 'x-user': '1'},
        )
        assert refused.status_code == 404

    store = Store.open(database_url, Path('/nonexistent'))
    try:
        row = ConversationRepository(store).get(conversation_id)
        assert row is not None and row.origin == 'app' and row.message_count == 4
        assert Scope.from_columns(row) == Scope(('firm', '7'), ('user', '42'), ('case', '9'))
    finally:
        store.close()
