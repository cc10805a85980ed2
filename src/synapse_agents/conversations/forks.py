"""Forking a conversation: a new one holding copies of the turns before one user message.

A fork re-runs a user message of a conversation from the same starting point: it gets a copy of
every row before that message (user, assistant, error and notice rows, in order), the tool
invocations of the copied answers, and the copied user messages' files. Copies get new ids,
generated in order so that ordering by id stays chronological, and `copied_from_id` names the
row each was copied from; run ids stay, so a copied answer still finds its turn's files on replay
(`chat/replay.py`). The fork keeps the source's agent, scope and deps values, and names it in
`forked_from_id` and `forked_at_message_id`. Unless given one, its title is `fork of <the source's
title>` (`fork_title`): a fork of a fork keeps its source's `fork of …` title instead of stacking
another `fork of`, and an untitled source gives `fork of Untitled`.

The ledger (`llm_calls`) is not copied: money spent once is counted once. The fork's counters are
then set from its own rows (`totals.reconcile_totals`): `message_count` and `tool_count` count the
copies, tokens and cost are the fork's own spend (none yet).

Everything is one transaction. Files are copied before it commits, each only from a regular file
directly in its source message's folder (no symlink is followed), into a folder named by the two
new ids; when anything fails the fork's folder is removed (`files.remove_inside`) and no row is
stored. A source file that is missing is skipped and its reference kept: the fork shows it as
missing, as the source does.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from ..corrupt import CorruptRow, NotJson
from ..errors import ConversationNotFound, NotAUserMessage, TurnInFlight
from ..store.ids import is_valid_id, new_id, shown_id
from ..store.schema import Base, utcnow
from .files import remove_inside, resolve_path
from .history import attachment_references
from .rows import json_object
from .tables import Conversation, Message, ToolInvocation
from .totals import reconcile_totals

if TYPE_CHECKING:
    from ..store.repository import Store

_messages = Base.metadata.tables[Message.__tablename__]
_tools = Base.metadata.tables[ToolInvocation.__tablename__]
_SCOPE_COLUMNS = ('tenant_type', 'tenant_id', 'actor_type', 'actor_id', 'subject_type', 'subject_id')
FORK_OF = 'fork of '
TITLE_LIMIT = 200
"""The longest title the `conversations.title` column holds."""


def fork_title(source_title: str, *, source_is_fork: bool) -> str:
    """The default title of a fork: `fork of <source title>`, whitespace collapsed.

    A fork of a fork whose title still starts with `fork of ` keeps that title (no `fork of fork
    of`); a renamed fork gets `fork of <its new title>`. An untitled source gives `fork of Untitled`
    (what the dashboard shows for it). A title too long for the column is cut at the last word
    that fits, with an ellipsis.
    """
    title = ' '.join(source_title.split())
    if source_is_fork and title.casefold().startswith(FORK_OF):
        return _cut(title)
    return _cut(FORK_OF + (title or 'Untitled'))


def _cut(text: str) -> str:
    """`text` if it fits `TITLE_LIMIT`, else cut at the last word that fits (inside the one word
    after `fork of ` when that is all) and ended with `…`."""
    if len(text) <= TITLE_LIMIT:
        return text
    cut = text[: TITLE_LIMIT - 1]
    space = cut.rfind(' ')
    if text[TITLE_LIMIT - 1] != ' ' and space > len(FORK_OF):
        cut = cut[:space]
    return cut.rstrip() + '…'


def fork_conversation(
    store: Store, source_id: str, message_id: str, *, origin: str = 'playground', title: str | None = None
) -> Conversation:
    """Fork `source_id` at its user message `message_id`; the new conversation. Blocking.

    Raises `ConversationNotFound`, `NotAUserMessage` or `TurnInFlight`, or the `OSError` of a
    file the disk refused (nothing is stored then).
    """
    if not is_valid_id(source_id):
        raise ConversationNotFound(f'No conversation with id {shown_id(source_id)}.')
    if not is_valid_id(message_id):
        raise NotAUserMessage(
            f'message_id: {shown_id(message_id)} is not a user message of conversation {shown_id(source_id)}.'
        )
    fork_id = new_id()
    try:
        with store.write() as session:
            return _copy(store, session, source_id, message_id, fork_id, origin=origin, title=title)
    except BaseException:
        remove_inside(store.attachments_dir, store.attachments_dir / fork_id)
        raise


def _copy(
    store: Store,
    session: Session,
    source_id: str,
    message_id: str,
    fork_id: str,
    *,
    origin: str,
    title: str | None,
) -> Conversation:
    source = session.get(Conversation, source_id)
    if source is None:
        raise ConversationNotFound(f'No conversation with id {shown_id(source_id)}.')
    at = session.execute(
        select(Message.id).where(
            Message.id == message_id, Message.conversation_id == source_id, Message.role == 'user'
        )
    ).first()
    if at is None:
        raise NotAUserMessage(
            f'message_id: {shown_id(message_id)} is not a user message of conversation {shown_id(source_id)}.'
        )
    rows = session.execute(
        select(_messages)
        .where(_messages.c.conversation_id == source_id, _messages.c.id < message_id)
        .order_by(_messages.c.id)
    ).all()
    ids = dict(zip((row.id for row in rows), sorted(new_id() for _ in rows), strict=True))
    answers = [row.id for row in rows if row.role == 'assistant']
    tools = (
        session.execute(
            select(_tools)
            .where(_tools.c.conversation_id == source_id, _tools.c.message_id.in_(answers))
            .order_by(_tools.c.started_at, _tools.c.id)
        ).all()
        if answers
        else []
    )
    if any(row.status == 'streaming' for row in rows) or any(tool.status == 'pending' for tool in tools):
        raise TurnInFlight('A turn before this message is still running: fork once it has finished.')
    # The files first: a row is written only once everything it points at is in place.
    copies = [_message_copy(store.attachments_dir, row, fork_id, ids[row.id]) for row in rows]
    now = utcnow()
    fork = Conversation(
        id=fork_id,
        agent_key=source.agent_key,
        agent_name=source.agent_name,
        title=fork_title(source.title, source_is_fork=source.forked_from_id is not None)
        if title is None
        else title,
        origin=origin,
        **{name: getattr(source, name) for name in _SCOPE_COLUMNS},
        forked_from_id=source_id,
        forked_at_message_id=message_id,
        deps_values=json_object(source.deps_values),  # values that cannot be read are not copied
        has_error=any(row.role == 'error' for row in rows),
        message_count=0,
        tool_count=0,
        input_tokens=0,
        output_tokens=0,
        created_at=now,
        updated_at=now,
    )
    session.add(fork)
    session.flush()
    if copies:
        session.execute(insert(_messages), copies)
    if tools:
        tool_ids = sorted(new_id() for _ in tools)
        session.execute(
            insert(_tools),
            [
                {
                    **tool._asdict(),
                    'id': tool_id,
                    'conversation_id': fork_id,
                    'message_id': ids[tool.message_id],
                    'owner': None,
                }
                for tool, tool_id in zip(tools, tool_ids, strict=True)
            ],
        )
    reconcile_totals(session.connection(), fork_id)
    session.refresh(fork)
    return fork


def _message_copy(attachments_dir: Path, row: Any, fork_id: str, copy_id: str) -> dict[str, Any]:
    """The values of a copy of message `row` in the fork, its files copied too; `CorruptRow` naming
    the row when one of its JSON values is stored as text that is not JSON (it cannot be written)."""
    for name, value in row._mapping.items():
        if isinstance(value, NotJson):
            raise CorruptRow('messages', row.id, f'{name} is not JSON ({value.problem})')
    values = {
        **row._asdict(),
        'id': copy_id,
        'conversation_id': fork_id,
        'owner': None,
        # The original row, however many forks deep: two branches share a turn when their rows
        # name the same original.
        'copied_from_id': row.copied_from_id or row.id,
    }
    if row.role == 'user' and isinstance(row.attachments, list):
        references = {id(item) for item in attachment_references(row.attachments)}
        values['attachments'] = [
            _copy_file(attachments_dir, item, (row.conversation_id, row.id), (fork_id, copy_id))
            if id(item) in references
            else item
            for item in row.attachments
        ]
    return values


def _copy_file(
    attachments_dir: Path, reference: dict[str, Any], source: tuple[str, str], target: tuple[str, str]
) -> dict[str, Any]:
    """Copy one referenced file into the fork's message folder; the reference with its new path.

    A reference whose path names no file of its own message (missing, a symlink, outside the
    folder) copies nothing; its path still moves to the fork's folder, where it names nothing.
    """
    relative = reference.get('path')
    if not isinstance(relative, str) or not relative:
        return dict(reference)
    name = PurePosixPath(relative.replace('\\', '/')).name
    if name in ('', '.', '..') or '\x00' in name:
        return dict(reference)
    copied = {**reference, 'path': f'{target[0]}/{target[1]}/{name}'}
    found = _source_file(attachments_dir, reference, *source)
    if found is None:
        return copied
    folder = attachments_dir / target[0] / target[1]
    folder.mkdir(parents=True, exist_ok=True)
    nofollow = getattr(os, 'O_NOFOLLOW', 0)
    try:
        source_fd = os.open(found, os.O_RDONLY | nofollow)
    except OSError:  # gone, or replaced by a link since it was resolved
        return copied
    with os.fdopen(source_fd, 'rb') as reader:
        try:
            target_fd = os.open(folder / found.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
        except FileExistsError:  # a second reference to the same file: copied already
            return copied
        with os.fdopen(target_fd, 'wb') as writer:
            shutil.copyfileobj(reader, writer)
    return copied


def _source_file(
    attachments_dir: Path, reference: dict[str, Any], conversation_id: str, message_id: str
) -> Path | None:
    """The regular file a reference names directly in its message's folder, reached through no symlink."""
    found = resolve_path(attachments_dir, reference, conversation_id, message_id)
    if found is None:
        return None
    try:
        # `resolve_path` follows links; a path that any link changed is refused here.
        lexical = Path(os.path.normpath(attachments_dir.resolve() / str(reference['path'])))
        if lexical != found or lexical.is_symlink():
            return None
    except (OSError, ValueError):
        return None
    return found
