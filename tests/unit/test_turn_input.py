"""A turn's input is checked by the engine for every front door (`chat/request.py`): the Python API
refuses what the playground's route refuses, in the same words, before anything is stored."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent

from synapse_agents import Synapse
from synapse_agents.errors import TurnInvalid

pytestmark = pytest.mark.anyio


def stored_messages(syn: Synapse) -> int:
    counts: dict[str, Any] = syn.runtime.store.counts()
    return int(counts['messages'])


@pytest.mark.parametrize(
    ('message', 'model', 'words', 'location'),
    [
        ('hi \ud800', None, 'message: lone UTF-16 surrogates', 'body.message'),
        ('hi', 'demo\x00', 'model: NUL characters are not accepted.', 'body.model'),
        ('hi\x00', None, 'message: NUL characters are not accepted.', 'body.message'),
        ('   ', None, 'message: send a message or at least one attachment.', 'body.message'),
    ],
)
async def test_the_python_api_refuses_what_the_route_refuses(
    database_url: str, message: str, model: str | None, words: str, location: str
) -> None:
    agent: Agent[None, str] = Agent('test', name='plain')
    async with Synapse(database_url=database_url, agents=[]) as syn:
        conv = await syn.conversation(agent, model=model)
        with pytest.raises(TurnInvalid) as refused:
            await conv.send(message)
        assert stored_messages(syn) == 0
    assert str(refused.value).startswith(words)
    assert isinstance(refused.value, ValueError), 'code that caught ValueError keeps working'
    assert refused.value.fields is not None and refused.value.fields[0]['location'] == location


async def test_too_many_or_too_large_files_are_refused_by_the_engine(database_url: str) -> None:
    agent: Agent[None, str] = Agent('test', name='plain')
    async with Synapse(database_url=database_url, agents=[]) as syn:
        settings = syn.runtime.settings
        settings.max_attachments, settings.attachments_max_bytes = 1, 4
        conv = await syn.conversation(agent)
        with pytest.raises(TurnInvalid, match='attachments: 2 files is more than the 1 a message may carry'):
            await conv.send('hi', attachments=[('a.txt', b'a'), ('b.txt', b'b')])
        with pytest.raises(TurnInvalid, match=r'big\.txt is larger than 4 bytes'):
            await conv.send('hi', attachments=[('big.txt', b'12345')])
        assert stored_messages(syn) == 0
