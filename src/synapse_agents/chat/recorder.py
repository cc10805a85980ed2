"""The recording capability Synapse adds to each chat run (never to the user's agent).

Hooks used:

- `before_model_request` / `after_model_request`: time each model request and write an `llm_calls`
  row with its tokens (cache and reasoning included), its tenant, user and preset, and its price
  at call time (`accounting/pricing.py`): the registry's price when the response's model is a
  priced registry model (`price_source='registry'`), else `usage.cost`, filled by pydantic-ai
  through genai-prices; with the reference-currency cost and the price's version. `None` stays
  `None` (unpriced). The row deletes the call's spending reservation in the same write (the turn's
  `Spending` capability holds it). A response with `failed_attempts` means a fallback model
  answered: that becomes a notice. A response cut short (the model failed halfway, the client
  left) never reaches `after_model_request`, yet the provider billed what it streamed: the engine
  hands the turn's messages to `record_unfinished` at the end, which writes those rows.
- `before_model_request` also keeps each request as sent (`prompts`, references only), which the
  turn turns into "what filled the prompt" rows off the event loop (`chat/prompt_context.py`); the
  engine adds the recorder after every other capability of the run, so it sees the request last.
- `wrap_tool_execute`: a `tool_invocations` row created `pending` when a function tool starts, then
  completed with its result or error and duration (`interrupted` when the run is cancelled).
- `on_event`: calls that never execute (arguments that fail validation) and output-tool calls get
  rows from their result events; native (provider-side) tool calls and returns get `native` rows.

Every write goes to the `WriteQueue`: no hook waits on the database.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import KW_ONLY, dataclass, field
from decimal import Decimal
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ApprovalRequired, CallDeferred
from pydantic_ai.messages import (
    AgentStreamEvent,
    FunctionToolResultEvent,
    ModelMessage,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    OutputToolCallEvent,
    OutputToolResultEvent,
    PartEndEvent,
    PartStartEvent,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import ToolDefinition

from .._json import jsonable
from ..accounting.capability import Spending, ledger_row
from ..accounting.ledger_writes import record_llm_call
from ..accounting.limits import Subject
from ..accounting.pricing import PricedCall, Pricer, Requested, requested_models
from ..conversations.decisions import AWAITING, mark_awaiting
from ..conversations.deferred import PausedCall
from ..conversations.turn_writes import tool_finished, tool_started
from ..events import ERROR_OUTCOMES, Notice, ToolTimed
from ..redaction import scrub, scrub_value
from ..registry.prices import REGISTRY_SOURCE
from ..settings import Settings
from ..store.ids import new_id
from ..store.schema import utcnow
from ..store.write_queue import TurnWrites, WriteQueue
from .outcome import native_tool_status
from .prompt_context import PromptSnapshot

_NESTED_LOCK = threading.Lock()


@dataclass
class _OpenTool:
    row_id: str
    started: float


def _ms(since: float) -> int:
    return round((time.perf_counter() - since) * 1000)


@dataclass(eq=False)
class Recorder(AbstractCapability[Any]):
    """Records one chat turn's model requests and tool calls (see the module docstring)."""

    _: KW_ONLY
    writes: TurnWrites | WriteQueue
    conversation_id: str
    message_id: str
    run_id: str
    agent_key: str
    module: str = 'chat'
    """The ledger module of the run's model requests (`llm_calls.module`)."""
    parent_run_id: str | None = None
    """The run that started this one, kept on each ledger row."""
    user: str | None = None
    """Who the run talks to (the scope's actor as `type:id`), kept on each ledger row."""
    tenant: str | None = None
    """Who pays (the scope's tenant as `type:id`), kept on each ledger row."""
    preset: str | None = None
    """The configured agent's preset key, kept on each ledger row."""
    notices: list[Notice] = field(default_factory=list)
    """Notices not yet sent to the stream (the engine drains them)."""
    all_notices: list[Notice] = field(default_factory=list)
    pricer: Pricer | None = None
    """The prices at hand (read before the run; None: genai-prices' cost as pydantic-ai found it)."""
    spending: Spending | None = None
    """The run's spending capability, whose reservation each ledger row settles."""
    price_hint: str | None = None
    """The registry model key the turn chose, preferred when a response names that model."""
    model_name: str | None = None
    provider_name: str | None = None
    llm_calls: int = 0
    costs: list[Decimal | None] = field(default_factory=list)
    """Each ledger row's cost in the reference currency, in order (None: unpriced, or priced in a
    currency with no rate): a turn's cost never adds two currencies."""
    registry_priced: bool = False
    """Whether the registry priced any of the run's responses."""
    nested_costs: list[Decimal | None] = field(default_factory=list)
    """The cost in the reference currency of each ledger row of the runs nested in this one."""
    input_tokens: int = 0
    output_tokens: int = 0
    """The tokens of every ledger row of the turn: its own requests' and its nested runs'."""
    tool_count: int = 0
    """Function and native tool calls started (output-tool calls are not counted)."""
    _deferred: dict[str, _OpenTool] = field(default_factory=dict)
    """Calls whose tool raised `CallDeferred` or `ApprovalRequired`, by call id (rows left pending)."""
    statuses: dict[str, str] = field(default_factory=dict)
    """Each finished tool call's stored status, by call id."""
    timings: list[ToolTimed] = field(default_factory=list)
    """Durations of tool calls finished since the engine last drained them (as stored)."""
    prompts: list[PromptSnapshot] = field(default_factory=list)
    """Each model request of the run as it was sent (`chat/prompt_context.py`)."""
    input_per_request: list[int | None] = field(default_factory=list)
    """Each request's input tokens as the provider counted them, beside `prompts` (None: no answer)."""
    _request_started: float = 0.0
    _requested: tuple[Requested, ...] = ()
    """The models the current request was sent to: a response named otherwise is priced as them."""
    _tools: dict[str, _OpenTool] = field(default_factory=dict)
    _done: set[str] = field(default_factory=set)

    # -- model requests ------------------------------------------------------------------

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self._request_started = time.perf_counter()
        self._requested = requested_models(request_context.model)
        model = request_context.model
        self.prompts.append(
            PromptSnapshot(
                request_context.messages,
                request_context.model_request_parameters,
                ctx.run_id,
                model.model_name,
                model.system,
            )
        )
        self.input_per_request.append(None)  # filled in by its response, if one comes
        return request_context

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        self.record_response(response, _ms(self._request_started) if self._request_started else None)
        return response

    def record_response(self, response: ModelResponse, duration_ms: int | None) -> None:
        """Write the ledger row for a model response and note a fallback."""
        price = self._price(response)
        self.costs.append(price.cost_reference)
        self.model_name = response.model_name or self.model_name
        self.provider_name = response.provider_name or self.provider_name
        self.llm_calls += 1
        self.input_tokens += response.usage.input_tokens
        self.output_tokens += response.usage.output_tokens
        if self.input_per_request and self.input_per_request[-1] is None:
            self.input_per_request[-1] = response.usage.input_tokens
        row = ledger_row(
            response,
            price,
            run_id=self.run_id,
            parent_run_id=self.parent_run_id,
            conversation_id=self.conversation_id,
            module=self.module,
            subject=Subject(tenant=self.tenant, user=self.user, agent=self.agent_key, preset=self.preset),
            duration_ms=duration_ms,
        )
        reservation = self.spending.settled(row) if self.spending is not None else None
        self.writes.submit(record_llm_call(row, reservation))
        if response.failed_attempts:
            failed = response.failed_attempts
            names = ', '.join(attempt.model_name for attempt in failed)
            notice = Notice(
                kind='fallback',
                message=f'Fell back from {names} to {response.model_name}.',
                data={
                    'to': response.model_name,
                    'provider': response.provider_name,
                    'attempts': [
                        {
                            'model': a.model_name,
                            'provider': a.provider_name,
                            'outcome': a.outcome,
                            'error': a.error,
                        }
                        for a in failed
                    ],
                },
            )
            self.add_notice(notice)

    def add_notice(self, notice: Notice) -> None:
        """A notice for the stream (the engine drains `notices`) and for the stored turn (secrets
        redacted: a fallback's notice quotes the errors of the models that failed)."""
        notice = Notice(notice.kind, scrub(notice.message), scrub_value(notice.data))
        self.notices.append(notice)
        self.all_notices.append(notice)

    def _price(self, response: ModelResponse) -> PricedCall:
        """A response's price: the registry's, else genai-prices' as pydantic-ai found it."""
        usage = response.usage
        known = Decimal(usage.cost) if usage.cost is not None else None
        if self.pricer is None:
            self.pricer = Pricer(Settings())
        price = self.pricer.price(
            usage,
            model=response.model_name,
            provider=response.provider_name,
            at=utcnow(),
            hint=self.price_hint,
            known_cost=known,
            ask_genai=False,
            requested=self._requested,
        )
        if price.price_source == REGISTRY_SOURCE:
            self.registry_priced = True
        return price

    def add_nested(self, row: dict[str, Any]) -> None:
        """A ledger row of a run nested in this one (`accounting/nested.py`; from any thread)."""
        with _NESTED_LOCK:
            self.nested_costs.append(row['cost_reference'])
            self.input_tokens += row['input_tokens'] or 0
            self.output_tokens += row['output_tokens'] or 0

    def run_cost(self) -> Decimal | None:
        """The turn's cost in the reference currency: the sum of its ledger rows' `cost_reference`,
        nested runs' included (never pydantic-ai's USD `usage.cost`, so a reply, its message and the
        conversation's totals agree); None when any row is unpriced, or when no request was made."""
        costs = [*self.costs, *self.nested_costs]
        if not costs or any(cost is None for cost in costs):
            return None
        return sum((cost for cost in costs if cost is not None), Decimal(0))

    def record_unfinished(self, messages: list[ModelMessage]) -> None:
        """Write ledger rows for the run's responses that never completed (their usage counts too)."""
        responses = [m for m in messages if isinstance(m, ModelResponse)]
        for response in responses[self.llm_calls :]:
            self.record_response(response, _ms(self._request_started) if self._request_started else None)

    def record_paused(self, calls: list[PausedCall]) -> None:
        """Store the calls the run paused on as `awaiting` rows (`conversations/decisions.py`)."""
        for call in calls:
            started = self._deferred.pop(call.tool_call_id, None)
            if started is not None:  # it ran and raised CallDeferred / ApprovalRequired: its row waits
                self.writes.submit(mark_awaiting(started.row_id, call.kind))
                continue
            self.tool_count += 1
            row = {
                'id': new_id(),
                'conversation_id': self.conversation_id,
                'message_id': self.message_id,
                'run_id': self.run_id,
                'tool_call_id': call.tool_call_id,
                'kind': 'function',
                'name': call.tool_name,
                'arguments': call.args,
                'status': AWAITING,
                'provider_status': call.kind,
                'owner': None,
                'started_at': utcnow(),
            }
            self.writes.submit(tool_started(row))

    # -- function tools ------------------------------------------------------------------

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
        handler: Any,
    ) -> Any:
        open_tool = self._start(call, kind='function')
        try:
            result = await handler(args)
        except (CallDeferred, ApprovalRequired):
            self._deferred[call.tool_call_id] = open_tool  # the run pauses on it: `record_paused`
            raise
        except asyncio.CancelledError:
            self._finish(call.tool_call_id, open_tool, status='interrupted', error='The run was cancelled.')
            raise
        except BaseException as exc:
            self._finish(call.tool_call_id, open_tool, status='error', error=f'{type(exc).__name__}: {exc}')
            raise
        self._finish(call.tool_call_id, open_tool, status='success', result=jsonable(result))
        return result

    def _start(
        self, call: ToolCallPart | NativeToolCallPart, *, kind: str, provider_status: str | None = None
    ) -> _OpenTool:
        open_tool = _OpenTool(new_id(), time.perf_counter())
        self._tools[call.tool_call_id] = open_tool
        row = {
            'id': open_tool.row_id,
            'conversation_id': self.conversation_id,
            'message_id': self.message_id,
            'run_id': self.run_id,
            'tool_call_id': call.tool_call_id,
            'kind': kind,
            'name': call.tool_name,
            'arguments': _arguments(call),
            'status': 'pending',
            'provider_status': provider_status,
            'started_at': utcnow(),
        }
        if kind != 'output':
            self.tool_count += 1
        self.writes.submit(tool_started(row))
        return open_tool

    def _finish(
        self,
        tool_call_id: str,
        open_tool: _OpenTool,
        *,
        status: str,
        result: Any = None,
        error: str | None = None,
        provider_status: str | None = None,
    ) -> None:
        self._tools.pop(tool_call_id, None)
        self._done.add(tool_call_id)
        duration_ms = _ms(open_tool.started)
        self.timings.append(ToolTimed(tool_call_id, duration_ms))
        self.statuses[tool_call_id] = status
        self.writes.submit(
            tool_finished(
                open_tool.row_id,
                status=status,
                result=scrub_value(result),
                error=scrub(error) if error is not None else None,
                duration_ms=duration_ms,
                finished_at=utcnow(),
                provider_status=provider_status,
            )
        )

    # -- events --------------------------------------------------------------------------

    def listens_to(self, event: AgentStreamEvent) -> bool:
        if isinstance(event, PartEndEvent):
            return isinstance(event.part, NativeToolCallPart)
        if isinstance(event, PartStartEvent):
            return isinstance(event.part, NativeToolReturnPart)
        return isinstance(event, FunctionToolResultEvent | OutputToolCallEvent | OutputToolResultEvent)

    async def on_event(self, ctx: RunContext[Any], *, event: AgentStreamEvent) -> None:
        if isinstance(event, PartEndEvent) and isinstance(event.part, NativeToolCallPart):
            self._start(event.part, kind='native', provider_status='called')
        elif isinstance(event, PartStartEvent) and isinstance(event.part, NativeToolReturnPart):
            part = event.part
            open_tool = self._tools.get(part.tool_call_id)
            if open_tool is None:
                open_tool = self._start(
                    NativeToolCallPart(tool_name=part.tool_name, tool_call_id=part.tool_call_id),
                    kind='native',
                )
            status = native_tool_status(part)
            self._finish(
                part.tool_call_id,
                open_tool,
                status=status,
                result=jsonable(part.content),
                error=None if status == 'success' else str(part.content),
                provider_status=part.outcome,
            )
        elif isinstance(event, OutputToolCallEvent):
            self._start(event.part, kind='output')
        elif isinstance(event, FunctionToolResultEvent | OutputToolResultEvent):
            self._tool_result(event.part)

    def _tool_result(self, part: ToolReturnPart) -> None:
        """A function or output tool's result event: completes rows no hook completed."""
        if part.tool_call_id in self._done:
            return  # wrap_tool_execute already completed this call
        open_tool = self._tools.get(part.tool_call_id)
        if open_tool is None and (part.outcome not in ERROR_OUTCOMES or part.outcome == 'denied'):
            return  # a denial is stored on the paused call's own row (`conversations/decisions.py`)
        if open_tool is None:
            call = ToolCallPart(tool_name=part.tool_name, tool_call_id=part.tool_call_id)
            open_tool = self._start(call, kind='function')
        failed = part.outcome in ERROR_OUTCOMES
        self._finish(
            part.tool_call_id,
            open_tool,
            status='error' if failed else 'success',
            result=None if failed else jsonable(part.content),
            error=part.model_response_str() if failed else None,
        )


def _arguments(call: ToolCallPart | NativeToolCallPart) -> dict[str, Any] | None:
    try:
        return call.args_as_dict()
    except Exception:
        return {'_raw': str(call.args)}
