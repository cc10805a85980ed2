"""The trace area's HTTP shapes: roots, trees of runs, model calls and tool calls, one call's data.

Amounts are decimal strings in the reference currency (null when unpriced); timestamps ISO 8601 in
UTC with milliseconds; durations in milliseconds.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, PlainSerializer

from ..accounting.spend import decimal_text
from ..wire_types import Timestamp
from .tables import TraceRun

Amount = Annotated[Decimal, PlainSerializer(decimal_text, return_type=str)]


class TraceRoot(BaseModel):
    """A root run (no parent, or a workflow step at depth 1) as the Traces page lists it."""

    agent_run_id: str
    parent_run_id: str | None
    depth: int
    origin: str
    """`direct`, `code`, `config`, `ephemeral` or `workflow`."""
    module: str
    agent_name: str | None
    agent_key: str | None
    workflow_run_id: str | None
    conversation_id: str | None
    message_id: str | None
    trace_id: str
    """The OpenTelemetry trace id: the same run in a tracing tool."""
    model: str | None
    status: str
    """`ok` or `error` (this run's own)."""
    error: str | None
    input_tokens: int
    output_tokens: int
    cost: Amount | None
    model_calls: int
    tool_calls: int
    started_at: Timestamp
    duration_ms: int

    @classmethod
    def of(cls, run: TraceRun) -> TraceRoot:
        return cls.model_validate(run, from_attributes=True)


class TracePage(BaseModel):
    """One page of roots, newest first."""

    roots: list[TraceRoot]
    next_before: str | None
    """Pass as `before` for the next page (null: this is the last one)."""


class TraceNode(BaseModel):
    """A node of a trace tree: a run, a model call or a tool call, with what ran inside it."""

    kind: Literal['run', 'model', 'tool']
    id: str
    """A run's `agent_run_id`, a model call's debug id, a tool call's row id."""
    name: str
    """The agent's name, the model, or the tool."""
    agent_run_id: str
    status: Literal['ok', 'error']
    error: str | None = None
    started_at: Timestamp
    duration_ms: int
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: Amount | None = None
    model: str | None = None
    # a run's
    corrupt: str | None = None
    """Why the stored row cannot be shown as it is (its parent run is one of its own descendants)."""
    hidden: int | None = None
    """How many nodes under this run the answer leaves out (it ends `MAX_TREE_DEPTH` levels below
    its top); this run's own trace shows them."""
    parent_run_id: str | None = None
    depth: int | None = None
    origin: str | None = None
    module: str | None = None
    agent_key: str | None = None
    conversation_id: str | None = None
    message_id: str | None = None
    workflow_run_id: str | None = None
    trace_id: str | None = None
    model_calls: int | None = None
    tool_calls: int | None = None
    output: Any = None
    # a model call's
    action: str | None = None
    provider: str | None = None
    finish_reason: str | None = None
    truncated: bool | None = None
    # a tool call's
    tool_call_id: str | None = None
    arguments: Any = None
    result: Any = None
    children: list[TraceNode] = []


class TraceTree(BaseModel):
    """A run and everything under it, down to `MAX_TREE_DEPTH` levels (see `hidden`)."""

    root: TraceNode


class ModelCallDetail(BaseModel):
    """One model call's debug log: what was sent and what came back."""

    id: str
    agent_run_id: str
    parent_run_id: str | None
    root_run_id: str
    depth: int
    origin: str
    module: str
    action: str
    workflow_run_id: str | None
    conversation_id: str | None
    model: str | None
    provider: str | None
    status: Literal['ok', 'error']
    error: str | None
    input_tokens: int
    output_tokens: int
    total_tokens: int
    cost: Amount | None
    finish_reason: str | None
    started_at: Timestamp
    duration_ms: int
    truncated: bool
    """Whether a body was larger than `debug_body_bytes` and is kept as a preview."""
    data_bytes: int
    data: dict[str, Any]
    """`request` (model, settings), `parameters` (tool definitions, output mode), `instructions`,
    `history` (the messages sent), `turns` (what came back), `usage`, `response` (id, model,
    finish reasons), in the OpenTelemetry GenAI form."""
