"""A task's log, step by step: what each model call answered, each tool call and its result.

`TaskSteps` is a pydantic-ai capability the runner adds to a task's run: after every model request
it logs the model, the tokens and what the response held (its text, the tools it called). The
runner logs the tool calls, their results and notices from the run's events through
`StepLog.event`. Each step is written as it happens (one short transaction, in order), before the
run goes on: a run that then waits (a slow tool, a long model call) already shows the steps so far.
Steps taken together (a response's tool calls, say) share one write.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    FunctionToolCallEvent,
    FunctionToolResultEvent,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import ToolDefinition

from .._json import jsonable
from ..events import ERROR_OUTCOMES, Notice
from .queue import append_logs

if TYPE_CHECKING:
    from ..store import Store

SNIPPET = 2_000
"""Characters of a text or result a log step keeps."""


def snippet(value: Any, limit: int = SNIPPET) -> str:
    text = value if isinstance(value, str) else json.dumps(jsonable(value), ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + '…'


@dataclass
class StepLog:
    """The steps of one task not yet written."""

    store: Store
    task_id: str
    pending: list[tuple[str, str, Any]] = field(default_factory=list)
    model_calls: int = 0
    _writing: anyio.Lock = field(default_factory=anyio.Lock, repr=False)

    def add(self, kind: str, message: str, data: Any = None) -> None:
        self.pending.append((kind, message, jsonable(data) if data is not None else None))

    async def flush(self) -> None:
        """Write the buffered steps (in a thread); one write at a time, so they keep their order."""
        async with self._writing:
            if not self.pending:
                return
            entries, self.pending = self.pending, []
            # Shielded: a heartbeat's flush cancelled as the run ends would lose the steps it took.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(append_logs, self.store, self.task_id, entries)

    def response(self, response: ModelResponse) -> None:
        """One model call's answer."""
        self.model_calls += 1
        usage = response.usage
        texts = [part.content for part in response.parts if isinstance(part, TextPart) and part.content]
        thoughts = sum(1 for part in response.parts if isinstance(part, ThinkingPart))
        calls = [part.tool_name for part in response.parts if isinstance(part, ToolCallPart)]
        said = []
        if calls:
            said.append('called ' + ', '.join(calls))
        if texts:
            said.append(f'answered {snippet(" ".join(texts), 160)!r}')
        if thoughts:
            said.append(f'thought ({thoughts} block{"s" if thoughts != 1 else ""})')
        tokens = f'{usage.input_tokens} in, {usage.output_tokens} out'
        self.add(
            'model_response',
            f'Model call {self.model_calls} ({response.model_name or "model"}, {tokens}): '
            + ('; '.join(said) or 'an empty response'),
            {
                'model': response.model_name,
                'provider': response.provider_name,
                'input_tokens': usage.input_tokens,
                'output_tokens': usage.output_tokens,
                'text': snippet(' '.join(texts)) if texts else None,
                'tool_calls': calls,
                'finish_reason': response.finish_reason,
            },
        )

    def event(self, event: Any) -> None:
        """A tool call or result, or a notice, from the run's events."""
        if isinstance(event, FunctionToolCallEvent):
            part = event.part
            self.add(
                'tool_call',
                f'Tool {part.tool_name}({snippet(part.args_as_json_str(), 200)})',
                {'tool': part.tool_name, 'tool_call_id': part.tool_call_id, 'arguments': part.args_as_dict()},
            )
        elif isinstance(event, FunctionToolResultEvent):
            result = event.part
            failed = result.outcome in ERROR_OUTCOMES
            content = result.content
            self.add(
                'tool_result',
                f'{"Tool failed" if failed else "Tool result"} {result.tool_name}: {snippet(content, 200)}',
                {
                    'tool': result.tool_name,
                    'tool_call_id': result.tool_call_id,
                    'result': snippet(content),
                    'failed': failed,
                },
            )
        elif isinstance(event, Notice):
            self.add('notice', event.message, {'kind': event.kind, **event.data})

    def tool_error(self, call: ToolCallPart, error: BaseException) -> None:
        """A tool that raised: pydantic-ai sends no result event for it (the run fails with it)."""
        text = f'{type(error).__name__}: {error}'
        self.add(
            'tool_result',
            f'Tool failed {call.tool_name}: {snippet(text, 200)}',
            {
                'tool': call.tool_name,
                'tool_call_id': call.tool_call_id,
                'result': snippet(text),
                'failed': True,
            },
        )


@dataclass
class TaskSteps(AbstractCapability[Any]):
    """Logs every model call of a task's run into its `StepLog`."""

    log: StepLog

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        self.log.response(response)
        await self.log.flush()
        return response

    async def on_tool_execute_error(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
        error: Exception,
    ) -> Any:
        self.log.tool_error(call, error)
        await self.log.flush()
        raise error
