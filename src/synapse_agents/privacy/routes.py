"""`/api/conversations/{id}/privacy`: whether a conversation's turns leave redacted, how many
placeholders its vault holds (never a value), and its `anonymize_pii` opt-out.

`GET` answers the `privacy_enabled` setting, the conversation's flag, and `redacting` (both on: what
the playground marks). `PUT` with `{"anonymize_pii": false}` opts one conversation out (`true` opts
it back in); it changes nothing else. `GET .../privacy/values` opens the vault with the secret key
and answers each placeholder with its entity and value: what a viewer asks to reveal, never shown
otherwise (a vault the key cannot open is a 409 saying so). The vault row is read and written with
the conversation's own tenant, so a conversation of one tenant never sees another's.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.concurrency import run_in_threadpool

from ..conversations.tables import Conversation
from ..errors import PrivacyUnavailable
from ..scope import Scope
from ..store.ids import is_valid_id, shown_id
from ..web.context import SynapseContext, get_context
from ..web.errors import ApiError, error_responses
from . import vault_store

router = APIRouter(tags=['privacy'])

Context = Annotated[SynapseContext, Depends(get_context)]
ConversationId = Annotated[str, Path(description='A conversation id.')]


class PrivacyStatus(BaseModel):
    enabled: bool = Field(description='The `privacy_enabled` setting: every turn redacts what it sends.')
    anonymize_pii: bool = Field(description="The conversation's own flag (off: it opted out).")
    redacting: bool = Field(description="Both on: this conversation's turns leave redacted.")
    placeholders: int = Field(description='How many values its vault holds (never the values).')


class RevealedValue(BaseModel):
    placeholder: str
    entity: str
    value: str


class RevealedValues(BaseModel):
    values: list[RevealedValue] = Field(
        description='Each placeholder of the vault, in the order it was made.'
    )


class PrivacyChange(BaseModel):
    model_config = ConfigDict(extra='forbid')

    anonymize_pii: StrictBool


def _conversation(context: SynapseContext, conversation_id: str) -> Conversation:
    if not is_valid_id(conversation_id):
        raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.')
    with context.store.read() as session:
        found = session.get(Conversation, conversation_id)
        if found is None:
            raise ApiError(404, f'No conversation with id {shown_id(conversation_id)}.')
        session.expunge(found)
    return found


def _status(context: SynapseContext, conversation: Conversation) -> PrivacyStatus:
    tenant = Scope.from_columns(conversation).label('tenant')
    found = vault_store.status(context.store, conversation.id, tenant)
    enabled = bool(context.settings.privacy_enabled)
    return PrivacyStatus(
        enabled=enabled,
        anonymize_pii=found.anonymize_pii,
        redacting=enabled and found.anonymize_pii,
        placeholders=found.placeholders,
    )


@router.get(
    '/api/conversations/{conversation_id}/privacy',
    response_model=PrivacyStatus,
    responses=error_responses(404),
)
async def privacy_status(conversation_id: ConversationId, context: Context) -> PrivacyStatus:
    """Whether the conversation's turns leave redacted, and how many placeholders it holds."""
    return await run_in_threadpool(lambda: _status(context, _conversation(context, conversation_id)))


@router.put(
    '/api/conversations/{conversation_id}/privacy',
    response_model=PrivacyStatus,
    responses=error_responses(404),
)
async def change_privacy(
    conversation_id: ConversationId, body: PrivacyChange, context: Context
) -> PrivacyStatus:
    """Opt the conversation out of redaction (`anonymize_pii: false`) or back in."""

    def changed() -> PrivacyStatus:
        conversation = _conversation(context, conversation_id)
        tenant = Scope.from_columns(conversation).label('tenant')
        vault_store.set_anonymize_pii(context.store, conversation.id, body.anonymize_pii, tenant)
        return _status(context, conversation)

    return await run_in_threadpool(changed)


@router.get(
    '/api/conversations/{conversation_id}/privacy/values',
    response_model=RevealedValues,
    responses=error_responses(404, 409),
)
async def reveal_values(conversation_id: ConversationId, context: Context) -> RevealedValues:
    """The values behind the conversation's placeholders (decrypted with the secret key)."""

    def revealed() -> RevealedValues:
        conversation = _conversation(context, conversation_id)
        tenant = Scope.from_columns(conversation).label('tenant')
        try:
            box = vault_store.box_for(context.settings)
            stored = vault_store.load(context.store, box, conversation.id, tenant)
        except PrivacyUnavailable as exc:
            raise ApiError(409, str(exc)) from exc
        return RevealedValues(
            values=[
                RevealedValue(placeholder=e.placeholder, entity=e.entity, value=e.value)
                for e in stored.vault.entries()
            ]
        )

    return await run_in_threadpool(revealed)
