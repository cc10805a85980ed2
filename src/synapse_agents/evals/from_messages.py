"""A test case from a turn that happened: "Save as test case" on the playground or in History.

The turn is named by its user message or by its answer. The case's input is the user message with
its files (`case_files.py`), and with `include_history` the conversation before it (the completed
turns' model messages, as stored). The answer becomes the expected output (`expected='output'`), a
reference kept in the case's metadata for a judge to compare against (`'reference'`), or nothing
(`'none'`). The case's metadata says where it came from (`source`: conversation, message, agent,
tenant), so a case saved from one tenant's conversation says whose words it holds.
"""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy import select

from ..conversations.tables import Conversation, Message
from ..errors import EvalInvalid
from ..store import Store
from ..store.ids import is_valid_id, shown_id
from .case_files import files_of_turn

Expected = Literal['output', 'reference', 'none']
NAME_LENGTH = 60


def _turn(messages: list[Message], message_id: str) -> tuple[Message, Message | None]:
    """The turn's user message and its answer (None when it has none) around `message_id`."""
    index = next((i for i, m in enumerate(messages) if m.id == message_id), None)
    if index is None:
        raise EvalInvalid('message_id', f'no message {shown_id(message_id)}', where='body')
    message = messages[index]
    if message.role == 'user':
        for later in messages[index + 1 :]:
            if later.role == 'user':
                break
            if later.role == 'assistant':
                return message, later
        return message, None
    if message.role != 'assistant':
        raise EvalInvalid('message_id', 'name a user message or an answer', where='body')
    for earlier in reversed(messages[:index]):
        if earlier.role == 'user':
            return earlier, message
    raise EvalInvalid('message_id', 'this answer has no question before it', where='body')


def _history(messages: list[Message], before: Message) -> list[Any]:
    """The completed turns' model messages before `before`, as stored."""
    history: list[Any] = []
    for message in messages:
        if message.id == before.id:
            break
        if message.role == 'assistant' and message.status == 'complete' and message.model_messages:
            history.extend(message.model_messages)
    return history


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while f'{name} ({number})' in taken:
        number += 1
    return f'{name} ({number})'


def case_from_message(
    store: Store,
    message_id: str,
    *,
    taken_names: set[str],
    name: str | None = None,
    expected: Expected = 'output',
    include_history: bool = False,
    evaluators: list[Any] | None = None,
) -> dict[str, Any]:
    """The case for the turn of `message_id` (see the module), named apart from `taken_names`."""
    if not is_valid_id(message_id):
        raise EvalInvalid('message_id', f'{shown_id(message_id)} is not a message id', where='body')
    with store.read() as session:
        conversation_id = session.scalar(select(Message.conversation_id).where(Message.id == message_id))
        if conversation_id is None:
            raise EvalInvalid('message_id', f'no message {shown_id(message_id)}', where='body')
        conversation = session.get(Conversation, conversation_id)
        messages = list(
            session.scalars(
                select(Message).where(Message.conversation_id == conversation_id).order_by(Message.id)
            )
        )
        session.expunge_all()
    question, answer = _turn(messages, message_id)
    if not question.content.strip():
        raise EvalInvalid('message_id', 'the question has no text to send again', where='body')
    inputs: dict[str, Any] = {'message': question.content}
    if files := files_of_turn(store, conversation_id, question.id, question.attachments):
        inputs['attachments'] = files
    if include_history and (history := _history(messages, question)):
        inputs['history'] = history
    source: dict[str, Any] = {'conversation_id': conversation_id, 'message_id': question.id}
    if conversation is not None:
        source['agent_key'] = conversation.agent_key
        if conversation.tenant_type and conversation.tenant_id:
            source['tenant'] = f'{conversation.tenant_type}:{conversation.tenant_id}'
    metadata: dict[str, Any] = {'source': source}
    case: dict[str, Any] = {
        'name': _unique(name or ' '.join(question.content.split())[:NAME_LENGTH], taken_names),
        'inputs': inputs,
    }
    if answer is not None and answer.status == 'complete' and expected != 'none':
        if expected == 'output':
            case['expected_output'] = answer.content
        else:
            metadata['reference'] = answer.content
    elif expected != 'none':
        raise EvalInvalid(
            'expected',
            'this turn has no completed answer to expect: save it with expected "none"',
            where='body',
        )
    case['metadata'] = metadata
    case['evaluators'] = list(evaluators or [])
    return case
