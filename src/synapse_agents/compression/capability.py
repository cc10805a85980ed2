"""`Compression(budget_tokens=..., keep_last=..., model=...)`: older turns sent as a summary.

    from synapse_agents.capabilities import Compression

    compression = Compression(budget_tokens=8000, keep_last=4, model='openai:gpt-5-mini')
    agent = Agent(model, capabilities=[compression])

Before each model request the capability looks at the messages about to be sent (the replayed
history and the run's own). When the conversation has a stored summary that still fits it, the
turns it stands for are replaced by it; when what would be sent passes `budget_tokens` (an estimate:
`history.estimate_tokens`), the turns from the summary's end up to the newest `keep_last` (which
stay verbatim) are summarised by one call to `model`, with the old summary if there is one, and the
new summary is stored and used from then on. So a long conversation costs a summary call each time
it outgrows the budget again, never one per turn. Cuts fall between turns, so a tool call keeps its
return; instructions are not part of the messages and are never summarised. The stored conversation
is never changed: forks and replays see every original message.

The summary call runs inside the turn: a nested run, with the turn's ledger row under module
`compression`, its trace under the turn, and the turn's spending limits. A failure leaves the
messages as they were, shows a notice, and is not tried again until `keep_last` more turns exist.
A compression shows a notice with the summary, and tells the plugins (`conversation_compressed`).

`model` is required (a pydantic-ai model or model string): a default would silently change what a
conversation costs.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import anyio.to_thread
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models import Model, ModelRequestContext

from ..accounting.nested import MODULE_KEY
from ..errors import CompressionUnavailable
from ..events import Compressed, Notice
from ..scope import METADATA_KEY
from ..store import Store
from ..store.in_turn import in_turn
from . import summaries
from .history import cuts, estimate_tokens, transcript, turn_starts

SUMMARY_PROMPT = (
    'You summarise the earlier part of a conversation between a user and an assistant so that the '
    'assistant can continue it without the original messages. Keep every fact, decision, name, '
    'number, identifier, open question and promise, and what tools returned that still matters; '
    'drop greetings and repetition. When a previous summary is given, merge it and the newer '
    'messages into one summary. Write short plain sentences or bullet points in the language of the '
    'conversation, with no preamble.'
)
SUMMARY_HEADING = 'Summary of the earlier conversation (its messages are not repeated here):'
NOT_IN_A_TURN = (
    'Compression keeps its summary in a Synapse database, per conversation: run the agent through '
    'Synapse (synapse serve, Synapse().conversation(...), a task), or build it with '
    'Compression.at(database_url, ...) and give the run a conversation_id.'
)


@dataclass
class _Window:
    """What one run sends in place of the older turns: the summary and how many messages it covers."""

    summary: str | None
    covered: int
    retry_after_turns: int | None


@dataclass(eq=False)
class CompressionCapability(AbstractCapability[Any]):
    """See the module docstring."""

    budget_tokens: int = field(kw_only=True)
    model: Model | str = field(kw_only=True)
    keep_last: int = field(default=4, kw_only=True)
    prompt: str = field(default=SUMMARY_PROMPT, kw_only=True)
    """The summariser's instructions."""
    store: Store | None = field(default=None, kw_only=True)
    """Where summaries are kept; unset: the Synapse turn's database."""
    _window: _Window | None = field(default=None, init=False, repr=False)
    _summariser: Agent[None, str] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if (
            isinstance(self.budget_tokens, bool)
            or not isinstance(self.budget_tokens, int)
            or self.budget_tokens < 1
        ):
            raise ValueError(
                f'Compression: budget_tokens must be a whole number above 0, not {self.budget_tokens!r}'
            )
        if isinstance(self.keep_last, bool) or not isinstance(self.keep_last, int) or self.keep_last < 1:
            raise ValueError(f'Compression: keep_last must be a whole number above 0, not {self.keep_last!r}')
        if not isinstance(self.model, Model | str) or not self.model:
            raise ValueError('Compression: model is required (a pydantic-ai model or model string)')

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        run = replace(self)  # each run its own window; the summariser agent is shared
        run._summariser = self._agent()
        return run

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        messages = request_context.messages
        conversation_id = ctx.conversation_id
        if len(messages) < 2:
            return request_context
        store = self._store()
        if not conversation_id:
            raise CompressionUnavailable(NOT_IN_A_TURN)
        window = self._window
        if window is None:
            stored = await anyio.to_thread.run_sync(summaries.load, store, conversation_id)
            window = self._window = _fitting(stored, messages)
        sent = with_summary(messages, window.summary, window.covered)
        if estimate_tokens(sent) > self.budget_tokens:
            await self._compress(ctx, store, conversation_id, messages, window)
            sent = with_summary(messages, window.summary, window.covered)
        if sent is messages:
            return request_context
        return replace(request_context, messages=sent)

    async def _compress(
        self,
        ctx: RunContext[Any],
        store: Store,
        conversation_id: str,
        messages: list[ModelMessage],
        window: _Window,
    ) -> None:
        """Summarise the turns from the window's end up to the newest `keep_last`, if any may go."""
        starts = turn_starts(messages)
        if len(starts) <= self.keep_last:
            return
        if window.retry_after_turns is not None and len(starts) < window.retry_after_turns:
            return  # it failed lately: not on every turn
        newest = starts[-self.keep_last]
        allowed = [cut for cut in cuts(messages) if window.covered < cut <= newest]
        if not allowed:
            return
        cut = max(allowed)
        before = estimate_tokens(with_summary(messages, window.summary, window.covered))
        try:
            summary = await self._summarise(ctx, window.summary, messages[window.covered : cut])
        except Exception as exc:
            retry = len(starts) + self.keep_last
            window.retry_after_turns = retry
            reason = f'{type(exc).__name__}: {exc}'[:500]
            await anyio.to_thread.run_sync(summaries.save_failure, store, conversation_id, reason, retry)
            _notify(
                Notice(
                    kind='compression_failed',
                    message=f'The history could not be summarised ({reason}); it was sent as it was.',
                    data={'error': reason, 'retry_after_turns': retry},
                )
            )
            return
        last_run_id = getattr(messages[cut - 1], 'run_id', None)
        calls = await anyio.to_thread.run_sync(
            summaries.save_summary, store, conversation_id, summary, cut, last_run_id, _model_name(self.model)
        )
        window.summary, window.covered, window.retry_after_turns = summary, cut, None
        after = estimate_tokens(with_summary(messages, summary, cut))
        _notify(
            Notice(
                kind='compressed',
                message=f'The first {cut} messages of the history are sent as a summary '
                f'(about {before:,} tokens down to {after:,}).',
                data={
                    'summary': summary,
                    'covered_messages': cut,
                    'tokens_before': before,
                    'tokens_after': after,
                    'estimated': True,
                    'summary_calls': calls,
                },
            )
        )
        turn = in_turn()
        if turn is not None and turn.compressed is not None:
            scope = (ctx.metadata or {}).get(METADATA_KEY) or {}
            agent = ctx.agent.name if ctx.agent is not None else None
            turn.compressed(Compressed(conversation_id, agent, scope, cut, summary))

    async def _summarise(self, ctx: RunContext[Any], summary: str | None, older: list[ModelMessage]) -> str:
        text = transcript(older)
        prompt = (
            f'Previous summary:\n{summary}\n\nNewer messages:\n{text}' if summary else f'Messages:\n{text}'
        )
        metadata = {MODULE_KEY: 'compression', METADATA_KEY: (ctx.metadata or {}).get(METADATA_KEY)}
        agent = self._summariser or self._agent()
        result = await agent.run(prompt, metadata=metadata)
        output = result.output.strip()
        if not output:
            raise ValueError('the summariser answered with nothing')
        return output

    def _agent(self) -> Agent[None, str]:
        if self._summariser is None:
            self._summariser = Agent(
                self.model, instructions=self.prompt, name='compression', output_type=str
            )
        return self._summariser

    def _store(self) -> Store:
        if self.store is not None:
            return self.store
        turn = in_turn()
        if turn is None:
            raise CompressionUnavailable(NOT_IN_A_TURN)
        return turn.store


def with_summary(messages: list[ModelMessage], summary: str | None, covered: int) -> list[ModelMessage]:
    """`messages` with the first `covered` replaced by `summary` (put before the first kept request's
    own parts: no two requests in a row); `messages` itself when there is nothing to replace."""
    if summary is None or covered <= 0 or covered >= len(messages):
        return messages
    first = messages[covered]
    assert isinstance(first, ModelRequest)  # a cut is always a request
    opening = replace(first, parts=[UserPromptPart(f'{SUMMARY_HEADING}\n{summary}'), *first.parts])
    return [opening, *messages[covered + 1 :]]


def _fitting(stored: summaries.Stored, messages: list[ModelMessage]) -> _Window:
    """The stored summary when it still stands for the start of `messages`; else none."""
    covered = stored.covered_messages
    fits = (
        stored.summary is not None
        and 0 < covered < len(messages)
        and covered in cuts(messages)
        and (
            stored.last_run_id is None or getattr(messages[covered - 1], 'run_id', None) == stored.last_run_id
        )
    )
    if not fits:
        return _Window(None, 0, stored.retry_after_turns)
    return _Window(stored.summary, covered, stored.retry_after_turns)


def _notify(notice: Notice) -> None:
    turn = in_turn()
    if turn is not None and turn.notify is not None:
        turn.notify(notice)


def _model_name(model: Model | str) -> str:
    return model if isinstance(model, str) else f'{model.system}:{model.model_name}'
