"""A case whose inputs carry a history runs after it: the history is stored as the case
conversation's earlier turns and the model receives it before the case's message. A history
that is not model messages errs its case alone."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from sqlalchemy import update

from eval_helpers import RECORDER, project, run_to_end
from synapse_agents.conversations.history import ConversationFilters
from synapse_agents.conversations.repository import ConversationRepository
from synapse_agents.conversations.seeded import seed_conversation
from synapse_agents.evals import book, runs
from synapse_agents.evals.tables import EvalDatasetVersion
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store

HISTORY: list[ModelMessage] = [
    ModelRequest(parts=[UserPromptPart('My order is A-1001.')]),
    ModelResponse(parts=[ToolCallPart('lookup_order', {'order_id': 'A-1001'}, tool_call_id='c1')]),
    ModelRequest(parts=[ToolReturnPart('lookup_order', 'ships tomorrow', tool_call_id='c1')]),
    ModelResponse(parts=[TextPart('It ships tomorrow.')]),
    ModelRequest(parts=[UserPromptPart('Thanks. And the colour?')]),
    ModelResponse(parts=[TextPart('Blue.')]),
]


def dumped() -> list[Any]:
    return list(ModelMessagesTypeAdapter.dump_python(HISTORY, mode='json'))


def test_a_history_is_stored_as_earlier_turns(store: Store) -> None:
    conversation_id = seed_conversation(store, dumped(), agent_key='a', origin='eval', title='t')
    repository = ConversationRepository(store)
    rows = repository.messages(conversation_id)
    assert [(r.role, r.content) for r in rows] == [
        ('user', 'My order is A-1001.'),
        ('assistant', 'It ships tomorrow.'),
        ('user', 'Thanks. And the colour?'),
        ('assistant', 'Blue.'),
    ]
    assert [r.id for r in rows] == sorted(r.id for r in rows)
    assert all(r.status == 'complete' and r.meta == {'seeded': True} for r in rows)
    assert len(rows[1].model_messages or []) == 4 and len(rows[3].model_messages or []) == 2
    (tool,) = repository.tool_invocations(conversation_id)
    assert (tool.name, tool.status, tool.message_id) == ('lookup_order', 'success', rows[1].id)
    conversation = repository.get(conversation_id)
    assert conversation is not None
    assert (conversation.origin, conversation.title) == ('eval', 't')
    assert (conversation.message_count, conversation.tool_count) == (4, 1), 'counters set from the rows'


def shape(messages: list[Any]) -> list[tuple[str, Any]]:
    """Each part's kind and what it says: a message compared whatever its timestamps."""
    return [
        (type(part).__name__, getattr(part, 'content', None) or getattr(part, 'args', None))
        for message in messages
        for part in message.parts
    ]


def test_an_invalid_history_stores_nothing(store: Store) -> None:
    for bad, said in (([{'kind': 'request'}], 'parts'), ([], 'no messages'), ('text', 'model messages')):
        with pytest.raises(ValueError, match=said):
            seed_conversation(store, bad, agent_key='a')
    assert ConversationRepository(store).page(ConversationFilters())[1] == 0


def test_a_case_with_a_history_runs_after_it(context: SynapseRuntime, store: Store) -> None:
    cases = [
        {
            'name': 'continued',
            'inputs': {'message': 'And when does it arrive?', 'history': dumped()},
            'evaluators': [{'Contains': 'And when does it arrive?'}],
        },
        {'name': 'fresh', 'inputs': {'message': 'Hello'}, 'evaluators': [{'Contains': 'Hello'}]},
    ]
    with project(context, {'{package}/agents.py': RECORDER}) as (package, agents):
        book.create(store, 'history', 'History', cases=cases)
        run = run_to_end(context, runs.create_run(store, 'history', f'{package}.agents.recorder').id)
        assert (run.status, run.passed, run.errored) == ('succeeded', 2, 0), runs.results(store, run.id)
        received = {shape(seen['messages'])[-1][1]: seen['messages'] for seen in agents.SEEN}
    continued = received['And when does it arrive?']
    assert shape(continued) == [*shape(HISTORY), ('UserPromptPart', 'And when does it arrive?')]
    assert shape(received['Hello']) == [('UserPromptPart', 'Hello')], 'no history: the message alone'
    first, _second = runs.results(store, run.id)
    thread = ConversationRepository(store).messages(first.conversation_id or '')
    assert [r.role for r in thread] == ['user', 'assistant'] * 3
    assert thread[-1].content == 'You said: And when does it arrive?'
    conversation = ConversationRepository(store).get(first.conversation_id or '')
    assert conversation is not None and conversation.origin == 'eval'
    assert conversation.title == 'And when does it arrive?'


def test_an_invalid_history_errs_its_case_alone(context: SynapseRuntime, store: Store) -> None:
    cases: list[dict[str, Any]] = [
        {'name': 'broken', 'inputs': {'message': 'Hi', 'history': dumped()}},
        {'name': 'fine', 'inputs': {'message': 'Hello'}, 'evaluators': [{'Contains': 'Hello'}]},
    ]
    with project(context, {'{package}/agents.py': RECORDER}) as (package, _agents):
        book.create(store, 'broken', 'Broken', cases=cases)
        # A history edited in the database after it was checked: the run meets it as it is.
        cases[0]['inputs']['history'] = [{'kind': 'request', 'parts': 'not parts'}]
        with store.write() as session:
            session.execute(update(EvalDatasetVersion).values(cases=cases))
        run = run_to_end(context, runs.create_run(store, 'broken', f'{package}.agents.recorder').id)
    assert (run.status, run.passed, run.errored) == ('succeeded', 1, 1)
    broken, fine = runs.results(store, run.id)
    assert broken.error is not None and 'history: not pydantic-ai model messages' in broken.error
    assert broken.conversation_id is None and fine.passed and fine.error is None
