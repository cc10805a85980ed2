"""`synapse privacy`: see what the detector would redact, and turn redaction off or on for one conversation.

A refusal (no such conversation, the detector unavailable) is one line on standard error with exit
code 1.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .. import cli_common
from ..cli_common import Json, echo_json, fail

if TYPE_CHECKING:
    from ..conversations.tables import Conversation
    from ..runtime.assembled import SynapseRuntime

privacy_app = typer.Typer(
    help='PII redaction: what the detector finds, and one conversation out.', no_args_is_help=True
)
ConversationArgument = Annotated[str, typer.Argument(help='The conversation (its id).')]


def _refused(exc: Exception) -> tuple[str, int] | None:
    from ..errors import ConversationNotFound, PrivacyUnavailable

    if isinstance(exc, ConversationNotFound | PrivacyUnavailable):
        return str(exc), 1
    return None


def _opened(ctx: typer.Context) -> AbstractContextManager[SynapseRuntime]:
    return cli_common.opened(ctx, refused=_refused)


def _say(text: str) -> None:
    Console(soft_wrap=True).print(escape(text))


@privacy_app.command('check')
def privacy_check(
    text: Annotated[str, typer.Argument(help='The text to look at.')],
    keep: Annotated[
        list[str] | None,
        typer.Option(
            '--keep',
            help="An entity left in clear (repeat it; unset: the privacy_except setting). '--keep none' "
            'redacts everything.',
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Print TEXT as the model would be sent it, and what was found (on this machine: the values too)."""
    from ..errors import DetectorUnavailable
    from ..settings import load_settings
    from .detector import detector
    from .vault import Vault

    kept = load_settings().settings.privacy_except if keep is None else [k for k in keep if k != 'none']
    try:
        found = detector().find(text, kept)
    except DetectorUnavailable as exc:
        fail(str(exc))
    vault = Vault()
    redacted, _ = vault.redact(text, found)
    rows = [
        {
            'placeholder': vault.placeholder(text[f.start : f.end], f.entity),
            'entity': f.entity,
            'value': text[f.start : f.end],
            'score': round(f.score, 2),
        }
        for f in found
    ]
    if as_json:
        echo_json({'redacted': redacted, 'kept': sorted(kept), 'found': rows})
        return
    _say(redacted)
    for row in rows:
        _say(f'  {row["placeholder"]}  {row["entity"]}  {row["value"]}  ({row["score"]})')
    if not rows:
        _say('  (nothing found)')


def _switch(ctx: typer.Context, conversation_id: str, enabled: bool, as_json: bool) -> None:
    from .vault_store import set_anonymize_pii

    with _opened(ctx) as runtime:
        conversation = _conversation(runtime, conversation_id)
        tenant = _tenant(conversation)
        set_anonymize_pii(runtime.store, conversation.id, enabled, tenant)
    if as_json:
        echo_json({'conversation_id': conversation.id, 'anonymize_pii': enabled})
    elif enabled:
        _say(f'Conversation {conversation.id} is redacted again (when privacy is on).')
    else:
        _say(f'Conversation {conversation.id} is sent as it is from its next turn on.')


@privacy_app.command('off')
def privacy_off(ctx: typer.Context, conversation_id: ConversationArgument, as_json: Json = False) -> None:
    """Send one conversation as it is (its anonymize_pii flag off), whatever privacy_enabled says."""
    _switch(ctx, conversation_id, False, as_json)


@privacy_app.command('on')
def privacy_on(ctx: typer.Context, conversation_id: ConversationArgument, as_json: Json = False) -> None:
    """Redact one conversation again (its anonymize_pii flag on, the default)."""
    _switch(ctx, conversation_id, True, as_json)


@privacy_app.command('status')
def privacy_status(ctx: typer.Context, conversation_id: ConversationArgument, as_json: Json = False) -> None:
    """Whether a conversation is redacted and how many placeholders its vault holds (never a value)."""
    from .vault_store import status

    with _opened(ctx) as runtime:
        conversation = _conversation(runtime, conversation_id)
        found = status(runtime.store, conversation.id, _tenant(conversation))
        enabled = runtime.settings.privacy_enabled
    if as_json:
        echo_json(
            {
                'conversation_id': conversation.id,
                'privacy_enabled': enabled,
                'anonymize_pii': found.anonymize_pii,
                'placeholders': found.placeholders,
            }
        )
        return
    flag = 'on' if found.anonymize_pii else 'off (sent as it is)'
    setting = 'on' if enabled else 'off (only agents with Privacy() redact)'
    _say(
        f'Conversation {conversation.id}: anonymize_pii {flag}; privacy_enabled {setting}; '
        f'{found.placeholders} placeholder{"" if found.placeholders == 1 else "s"} in its vault.'
    )


def _tenant(conversation: Conversation) -> str | None:
    from ..scope import Scope

    return Scope.from_columns(conversation).label('tenant')


def _conversation(runtime: SynapseRuntime, conversation_id: str) -> Conversation:
    from ..conversations.tables import Conversation
    from ..errors import ConversationNotFound
    from ..store.ids import shown_id

    with runtime.store.read() as session:
        row = session.get(Conversation, conversation_id)
        if row is None:
            raise ConversationNotFound(f'No conversation with id {shown_id(conversation_id)}.')
        session.expunge(row)
        return row
