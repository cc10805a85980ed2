"""The rules HTTP API: list, add, change, pause, remove, and the block a scope's prompt gets.

Axes are `type:id` labels (`org:acme`, `case:7`, `user:42`). A bad input is a 422 naming the field
(`RuleInvalid`), an unknown id a 404 (`RuleNotFound`); the services run in a thread.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..errors import RuleInvalid
from ..scope import Scope
from ..web.context import SynapseContext, get_context
from ..web.errors import error_responses
from ..wire_types import Timestamp
from . import book
from .capability import render
from .tables import Rule

router = APIRouter(tags=['rules'])

Context = Annotated[SynapseContext, Depends(get_context)]
LABEL = r'^[^:\x00]{1,255}:[^\x00]{1,255}$'
"""`type:id`: a type without a colon, an id (colons allowed), each 1 to 255 characters, no NUL. Said
in the schema; checked by the service (`book.check_label`), whose refusal names the field in words."""
TEXT = r'^[^\x00]*[^\s\x00\x1c-\x1f][^\x00]*$'
"""Not only whitespace, no NUL (checked by `book.check_text`)."""
Label = Annotated[str, Field(json_schema_extra={'pattern': LABEL}, examples=['org:acme'])]
LabelQuery = Annotated[
    str | None,
    Query(
        json_schema_extra={'pattern': r'^([^:\x00]{1,255}:[^\x00]{1,255})?$'},
        description="A `type:id`; '' for none.",
    ),
]
Text = Annotated[
    str,
    Field(
        json_schema_extra={'pattern': TEXT, 'maxLength': book.MAX_TEXT},
        examples=['Never quote fees over chat.'],
    ),
]
Priority = Annotated[int, Field(ge=book.PRIORITY_RANGE[0], le=book.PRIORITY_RANGE[1])]


class RuleOut(BaseModel):
    """A rule as stored."""

    id: str
    tenant: str = Field(description='Whose rule it is (`type:id`).')
    subject: str | None = Field(description='What it is about; null: the tenant as a whole.')
    applies_to: str | None = Field(description='Who it applies to; null: everyone in that scope.')
    text: str
    priority: int = Field(description='Lower first; ties in the order they were written.')
    enabled: bool
    created_by: str | None
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, rule: Rule) -> RuleOut:
        return cls.model_validate(rule, from_attributes=True)


class RuleList(BaseModel):
    rules: list[RuleOut]


class RuleIn(BaseModel):
    """A new rule."""

    model_config = ConfigDict(extra='forbid')

    tenant: Label
    text: Text
    subject: Label | None = None
    applies_to: Label | None = None
    priority: Priority = 0
    enabled: bool = True
    created_by: str | None = Field(None, max_length=511, pattern=r'^[^\x00]*$')


class RulePatch(BaseModel):
    """The fields to change; the others stay. `subject` or `applies_to` null: tenant-wide, everyone."""

    model_config = ConfigDict(extra='forbid')

    tenant: Label = None  # type: ignore[assignment]  # may be left out, never null
    text: Text = None  # type: ignore[assignment]
    subject: Label | None = None
    applies_to: Label | None = None
    priority: Priority = None  # type: ignore[assignment]
    enabled: bool = None  # type: ignore[assignment]


class RuleDeleted(BaseModel):
    deleted: str


class RulesPreview(BaseModel):
    """What a conversation of one scope gets: its rules and the block at the top of its prompt."""

    shared: list[str]
    personal: list[str]
    block: str = Field(description="The prompt block, with the headings from the settings; '' for none.")


@router.get('/api/rules', response_model=RuleList)
async def list_rules(
    context: Context,
    tenant: LabelQuery = None,
    subject: LabelQuery = None,
    applies_to: LabelQuery = None,
    enabled: bool | None = None,
) -> RuleList:
    """The rules, by tenant and subject (tenant-wide first), shared before personal, in prompt order."""
    filters = book.RuleFilters(tenant=tenant or None, subject=subject, applies_to=applies_to, enabled=enabled)
    rows = await run_in_threadpool(book.listing, context.store, filters)
    return RuleList(rules=[RuleOut.of(row) for row in rows])


@router.post('/api/rules', response_model=RuleOut, status_code=201)
async def add_rule(body: RuleIn, context: Context) -> RuleOut:
    """Add a rule."""
    rule = book.RuleInput(**body.model_dump())
    return RuleOut.of(await run_in_threadpool(book.add, context.store, rule))


@router.get('/api/rules/preview', response_model=RulesPreview)
async def preview_rules(
    context: Context,
    tenant: Annotated[str, Query(json_schema_extra={'pattern': LABEL}, description='`type:id`')],
    subject: LabelQuery = None,
    actor: LabelQuery = None,
) -> RulesPreview:
    """The rules and the prompt block a conversation of this tenant, subject and actor gets."""
    scope = _scope(tenant, subject, actor)
    found = await run_in_threadpool(book.in_scope, context.store, scope)
    return RulesPreview(shared=found.shared, personal=found.personal, block=render(found, context.settings))


@router.get('/api/rules/{rule_id}', response_model=RuleOut, responses=error_responses(404))
async def get_rule(rule_id: str, context: Context) -> RuleOut:
    return RuleOut.of(await run_in_threadpool(book.get, context.store, rule_id))


@router.patch('/api/rules/{rule_id}', response_model=RuleOut, responses=error_responses(404))
async def change_rule(rule_id: str, body: RulePatch, context: Context) -> RuleOut:
    """Change a rule: the fields sent replace its own (`enabled: false` pauses it)."""
    changes: dict[str, Any] = body.model_dump(exclude_unset=True)
    return RuleOut.of(await run_in_threadpool(book.update, context.store, rule_id, changes))


@router.delete('/api/rules/{rule_id}', response_model=RuleDeleted, responses=error_responses(404))
async def remove_rule(rule_id: str, context: Context) -> RuleDeleted:
    """Delete a rule for good (to stop it for a while, pause it)."""
    await run_in_threadpool(book.remove, context.store, rule_id)
    return RuleDeleted(deleted=rule_id)


def _scope(tenant: str, subject: str | None, actor: str | None) -> Scope:
    try:
        labels = {
            'tenant': book.check_label('tenant', tenant, required=True),
            'subject': book.check_label('subject', subject),
            'actor': book.check_label('actor', actor),
        }
    except RuleInvalid as exc:
        raise RuleInvalid(exc.field, exc.problem, where='query') from None
    pairs = {axis: tuple(label.split(':', 1)) if label else None for axis, label in labels.items()}
    return Scope(**pairs)  # type: ignore[arg-type]
