"""Tool calls that wait for a person: approvals and results supplied from outside the run.

A run whose tools need approval (`requires_approval=True`, `ApprovalRequired`) or are executed
elsewhere (`CallDeferred`, `ExternalToolset`) ends with pydantic-ai's `DeferredToolRequests` as
its output. Synapse stores that turn as complete, with one `awaiting` tool row per paused call
(`conversations/decisions.py`), and the conversation waits: a new message is refused until someone
decides. The decisions arrive as `Decisions` (the chat route's `decisions` field, the Python API's
`Conversation.decide`), are claimed in the database (two servers deciding the same calls: one
wins), and the next turn resumes the run with `DeferredToolResults`.

A decision per call: `Decision(approved=True)`, `Decision(approved=False, reason=...)` (the model
is told the reason, or pydantic-ai's own "The tool call was denied."), or for an external call
`Decision(result=...)` (what the tool returned, as JSON).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolDenied

from .._json import jsonable
from ..errors import DecisionsInvalid
from .decisions import AwaitingCall

PauseKind = Literal['approval', 'external']
"""`approval`: Approve or Deny; `external`: the call's result is supplied from outside the run."""

MAX_REASON_CHARS = 2000


@dataclass(frozen=True)
class PausedCall:
    """One tool call a run paused on."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    kind: PauseKind

    def as_json(self) -> dict[str, Any]:
        return {
            'tool_call_id': self.tool_call_id,
            'tool_name': self.tool_name,
            'args': self.args,
            'kind': self.kind,
        }


@dataclass(frozen=True)
class Decision:
    """What was decided for one paused call: approved, denied (with a reason), or its result."""

    approved: bool | None = None
    reason: str | None = None
    result: Any = None
    has_result: bool = False

    @property
    def status(self) -> str:
        """The paused row's stored status once decided: `approved`, `denied` or `success`."""
        if self.has_result:
            return 'success'
        return 'approved' if self.approved else 'denied'

    @property
    def stored_error(self) -> str | None:
        """The paused row's `error` once decided: a denial's reason."""
        if self.has_result or self.approved:
            return None
        return self.reason or 'Denied.'

    def as_json(self) -> dict[str, Any]:
        if self.has_result:
            return {'result': self.result}
        shown: dict[str, Any] = {'approved': bool(self.approved)}
        if self.reason:
            shown['reason'] = self.reason
        return shown


Decisions = dict[str, Decision]
"""Decisions by tool call id."""


def paused_calls(output: Any) -> list[PausedCall]:
    """The calls a run's output paused on (none unless it is `DeferredToolRequests`)."""
    if not isinstance(output, DeferredToolRequests):
        return []
    return [*_calls(output.approvals, 'approval'), *_calls(output.calls, 'external')]


def waiting_call(row: AwaitingCall) -> PausedCall:
    """A stored paused call (`conversations/decisions.py`) as the call it is."""
    kind: PauseKind = 'external' if row.kind == 'external' else 'approval'
    return PausedCall(row.tool_call_id, row.tool_name, row.args, kind)


def _calls(parts: list[ToolCallPart], kind: PauseKind) -> list[PausedCall]:
    return [PausedCall(p.tool_call_id, p.tool_name, jsonable(p.args_as_dict()), kind) for p in parts]


def read_decisions(raw: str | Mapping[str, Any]) -> Decisions:
    """Decisions from JSON or `Decision`s: `{call_id: {"approved": bool, "reason"?: str} | {"result": x}}`."""
    value: Any = raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DecisionsInvalid(f'decisions: not valid JSON ({exc.msg}).') from exc
    if not isinstance(value, Mapping) or not value:
        raise DecisionsInvalid('decisions: expected an object mapping each tool call id to its decision.')
    decisions: Decisions = {}
    for call_id, item in value.items():
        if not isinstance(call_id, str) or not call_id or len(call_id) > 255 or '\x00' in call_id:
            raise DecisionsInvalid(f'decisions: {call_id!r:.80} is not a tool call id.')
        decisions[call_id] = _decision(call_id, item)
    return decisions


def _decision(call_id: str, item: Any) -> Decision:
    where = f'decisions[{call_id!r:.80}]'
    if isinstance(item, Decision):
        item = item.as_json()
    if isinstance(item, bool):
        return Decision(approved=item)
    if not isinstance(item, Mapping):
        raise DecisionsInvalid(f'{where}: expected {{"approved": true|false}} or {{"result": ...}}.')
    unknown = set(item) - {'approved', 'reason', 'result'}
    if unknown:
        raise DecisionsInvalid(f'{where}: unknown field {sorted(unknown)[0]!r:.80}.')
    if 'result' in item:
        if 'approved' in item or 'reason' in item:
            raise DecisionsInvalid(f'{where}: a result cannot also approve or deny.')
        return Decision(result=jsonable(item['result']), has_result=True)
    approved = item.get('approved')
    if not isinstance(approved, bool):
        raise DecisionsInvalid(f'{where}.approved: expected true or false.')
    reason = item.get('reason')
    if reason is not None and not isinstance(reason, str):
        raise DecisionsInvalid(f'{where}.reason: expected text.')
    if reason is not None and (len(reason) > MAX_REASON_CHARS or '\x00' in reason):
        raise DecisionsInvalid(f'{where}.reason: at most {MAX_REASON_CHARS} characters, no NUL.')
    if approved and reason:
        raise DecisionsInvalid(f'{where}.reason: only a denial has a reason.')
    return Decision(approved=approved, reason=(reason or '').strip() or None)


def check_answers(decisions: Decisions, waiting: list[PausedCall]) -> None:
    """Raise `DecisionsInvalid` unless `decisions` answer exactly the calls `waiting`, each in kind."""
    kinds = {call.tool_call_id: call.kind for call in waiting}
    unknown = [call_id for call_id in decisions if call_id not in kinds]
    if unknown:
        raise DecisionsInvalid(f'decisions: no tool call {unknown[0]!r:.80} is waiting for a decision.')
    missing = [call.tool_call_id for call in waiting if call.tool_call_id not in decisions]
    if missing:
        names = ', '.join(f'{c.tool_name} ({c.tool_call_id})' for c in waiting if c.tool_call_id in missing)
        raise DecisionsInvalid(f'decisions: every waiting call needs an answer; missing: {names}.')
    for call in waiting:
        decision = decisions[call.tool_call_id]
        if call.kind == 'external' and not decision.has_result:
            raise DecisionsInvalid(
                f'decisions[{call.tool_call_id!r}]: {call.tool_name} runs outside the agent; '
                'send its result as {"result": ...}.'
            )
        if call.kind == 'approval' and decision.has_result:
            raise DecisionsInvalid(
                f'decisions[{call.tool_call_id!r}]: {call.tool_name} needs approval; '
                'send {"approved": true} or {"approved": false, "reason": "..."}.'
            )


def results_for(decisions: Decisions) -> DeferredToolResults:
    """The `DeferredToolResults` that resume the run."""
    results = DeferredToolResults()
    for call_id, decision in decisions.items():
        if decision.has_result:
            results.calls[call_id] = decision.result
        elif decision.approved:
            results.approvals[call_id] = True
        else:
            results.approvals[call_id] = ToolDenied(decision.reason) if decision.reason else False
    return results


def summary(decisions: Decisions, waiting: list[PausedCall]) -> str:
    """The decisions in words: the stored user message of the turn that resumes the run."""
    names = {call.tool_call_id: call.tool_name for call in waiting}
    lines = []
    for call_id, decision in decisions.items():
        name = names.get(call_id, call_id)
        if decision.has_result:
            lines.append(f'Supplied the result of {name}.')
        elif decision.approved:
            lines.append(f'Approved {name}.')
        else:
            lines.append(f'Denied {name}' + (f': {decision.reason}' if decision.reason else '.'))
    return '\n'.join(lines)


def waiting_text(waiting: list[PausedCall]) -> str:
    """Which calls wait, for the refusal of a new message."""
    names = ', '.join(f'{call.tool_name} ({call.tool_call_id})' for call in waiting[:5])
    more = f' and {len(waiting) - 5} more' if len(waiting) > 5 else ''
    count = 'a tool call' if len(waiting) == 1 else f'{len(waiting)} tool calls'
    return (
        f'This conversation is waiting for a decision on {count}: {names}{more}. '
        'Approve, deny or answer them first.'
    )
