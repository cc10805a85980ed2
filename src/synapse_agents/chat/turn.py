"""One turn running: the domain events of a prepared turn, and how it is stored.

`TurnStream.events` queues the turn's first rows, runs `agent.run_stream_events` with the per-run
`Recorder` and `Spending` (docs/accounting.md) capabilities, the request's own, its usage limits
and scope, yields each event as soon as it exists (`events.py`), and stores the answer. One
catch-all covers everything from building the model and the deps to the last event: any
exception becomes an error row and a `TurnFailed` event. A consumer that goes away (cancellation,
closing the stream) ends the run; what it produced is stored as interrupted. The turn waits for
the final write before it yields the run's result (and for a reservation when limits apply); that
write is queued as soon as the result exists and commits while the run closes (its spans end).

The agent is the project's own object and is never changed: the run is named by the target's name
(the discovered attribute) through pydantic-ai's `Agent.override(name=...)`, which holds for the
turn's task only (a bare `run` would name an unnamed agent after the local variable for good), and
it runs in the Synapse conversation (`conversation_id`), as the runs nested in it do
(`accounting/nested.py`).

A turn the store cannot write is never reported as saved: when its first or its last write fails
(a full disk, a read-only or broken database), the turn ends with a `TurnFailed` saying so
(`TurnNotSaved`: "This turn could not be saved: database or disk is full"); its `TurnFinished` has
`saved=False` and None for each id whose row is not stored (`saved=True` once everything is
committed). Its attachment files are removed when its messages are not stored.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from concurrent.futures import Future
from contextlib import AsyncExitStack, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio.to_thread
from pydantic_ai.messages import (
    ModelMessage,
    NativeToolReturnPart,
    PartStartEvent,
    ToolResultEvent,
    UserContent,
)
from pydantic_ai.run import AgentRunResult, AgentRunResultEvent

from .._json import jsonable
from ..accounting.capability import Spending
from ..accounting.nested import TurnAccount, accounted
from ..conversations.decisions import reopen_decisions
from ..conversations.deferred import PausedCall, paused_calls
from ..conversations.deps_values import remember_deps
from ..conversations.files import remove_inside
from ..conversations.transcript import answer_text, display_parts
from ..conversations.turn_writes import ErrorRecord, TurnEnd, TurnStart, abandon_turn, begin_turn, end_turn
from ..deps_setup import missing_factory_hint
from ..events import TurnEvent, TurnFailed, TurnFinished, TurnStarted
from ..redaction import scrub, scrub_value
from ..scope import METADATA_KEY
from ..settings import Settings
from ..store.ids import is_valid_id, new_id
from ..store.in_turn import InTurn, running_on
from ..store.write_queue import TurnWrites, WriteQueue
from ..targets.model_choice import MissingApiKey
from .deps import close_quietly, lifetime_of, open_deps
from .outcome import TurnNotSaved, dump_messages, is_recoverable
from .prepared import PreparedTurn
from .prompt_context import context_rows, record_contexts
from .recorder import Recorder
from .sub_agents import following
from .tracing import traced_turn, wants_debug


class DepsUnavailable(RuntimeError):
    """The agent needs deps and Synapse has no factory to build them."""


class TurnStream:
    """One turn running: runs the agent, yields its events, stores how it ended."""

    deps_stack: AsyncExitStack | None = None
    """The teardown of the turn's deps (`chat/deps.py`), run when `events` ends."""

    def __init__(self, turn: PreparedTurn, queue: WriteQueue, attachments_dir: Path) -> None:
        self.queue = queue
        self.attachments_dir = attachments_dir
        self.turn = turn
        self.started = time.perf_counter()
        self.handle: Any = None
        self.result: AgentRunResult[Any] | None = None
        self.duration_ms: int | None = None
        self.ended = False
        self.writes = TurnWrites(queue)
        self.begun: Future[Any] | None = None
        """The `begin_turn` write."""
        self.final: Future[Any] | None = None
        """The final write of a run that completed (queued by `_complete`)."""
        self.saved: bool | None = None
        """Whether every write of the turn committed (None until the final write is done)."""
        self.lost_start = False
        self.lost_answer = False
        self.status = 'streaming'
        """The assistant row's status (final once the turn has ended)."""
        self.paused: list[PausedCall] = []
        """The tool calls the run paused on (a complete turn that waits for decisions)."""
        self.spending = Spending(
            queue.store,
            settings=turn.settings,
            tenant=turn.scope.label('tenant'),
            user=turn.scope.label('actor'),
            agent=turn.target.slug,
            preset=turn.preset,
            conversation_id=turn.conversation_id,
            run_id=turn.run_id,
            writes=self.writes,
            records_ledger=False,
            prices=turn.pricer,
            price_hint=turn.price_hint,
            notify=lambda notice: self.recorder.add_notice(notice),
        )
        self.results_out: set[str] = set()
        """The tool calls whose result event has been handed out: their durations may follow."""
        self.recorder = Recorder(
            writes=self.writes,
            conversation_id=turn.conversation_id,
            message_id=turn.assistant_message_id,
            run_id=turn.run_id,
            agent_key=turn.target.slug,
            module=turn.module,
            parent_run_id=turn.parent_run_id,
            user=turn.scope.label('actor'),
            tenant=turn.scope.label('tenant'),
            preset=turn.preset,
            pricer=turn.pricer,
            price_hint=turn.price_hint,
            spending=self.spending,
        )
        self.account = TurnAccount(
            self.spending,
            run_id=turn.run_id,
            module=turn.module,
            on_row=self.recorder.add_nested,
            conversation_id=turn.conversation_id,
        )

    # -- the events ----------------------------------------------------------------------

    async def events(self) -> AsyncGenerator[TurnEvent, None]:
        """The turn's events (see `events.py`); the turn is stored by the time each ends."""
        turn = self.turn
        scope = turn.scope.columns()
        if turn.setup_error is None:
            self.spending.look_ahead()  # the first model request's limits read, under way meanwhile
        self.begun = self.writes.submit(
            begin_turn(
                TurnStart(
                    conversation_id=turn.conversation_id,
                    new_conversation=turn.new_conversation,
                    agent_key=turn.target.slug,
                    agent_name=turn.target.name,
                    run_id=turn.run_id,
                    user_message_id=turn.user_message_id,
                    assistant_message_id=turn.assistant_message_id,
                    content=turn.message,
                    attachments=[a.reference() for a in turn.attachments],
                    meta=turn.meta(model=turn.model_name, provider=turn.provider),
                    origin=turn.origin,
                    tenant_type=scope['tenant_type'],
                    tenant_id=scope['tenant_id'],
                    actor_type=scope['actor_type'],
                    actor_id=scope['actor_id'],
                    subject_type=scope['subject_type'],
                    subject_id=scope['subject_id'],
                    user_meta=turn.user_meta,
                )
            )
        )
        failure: TurnFailed | None = None
        outcome: AgentRunResultEvent[Any] | None = None
        try:
            yield TurnStarted(
                conversation_id=turn.conversation_id,
                message_id=turn.assistant_message_id,
                user_message_id=turn.user_message_id,
                run_id=turn.run_id,
                model=turn.model_name,
                provider=turn.provider,
                stateless=turn.target.stateless,
                currency=_currency(turn),
            )
            if turn.setup_error is not None:
                raise turn.setup_error
            agent = turn.target.agent
            if agent is None:
                raise RuntimeError(f'agent {turn.target.slug!r} is not available')
            self.deps_stack = AsyncExitStack()
            deps = await _make_deps(turn, self.deps_stack, self.writes)
            prompt: str | list[UserContent] | None = turn.message if turn.resume is None else None
            if turn.attachments and turn.resume is None:
                prompt = [turn.message, *(a.content() for a in turn.attachments)]
            with (
                agent.override(name=turn.target.name),
                traced_turn(turn, self.queue),
                following(turn.model, turn.sub_agents),
                accounted(self.account),
                running_on(
                    InTurn(
                        self.queue.store,
                        turn.settings or Settings(),
                        notify=self.recorder.add_notice,
                        compressed=turn.on_compressed,
                        run_id=turn.run_id,
                        rag_sources=turn.target.rag_sources,
                    )
                ),
            ):
                async with agent.run_stream_events(
                    prompt,
                    message_history=turn.history or None,
                    model=turn.model,
                    model_settings=turn.model_settings,
                    deps=deps,
                    usage_limits=turn.usage_limits,
                    metadata={METADATA_KEY: turn.scope.as_json()},
                    capabilities=[self.spending, *turn.capabilities, self.recorder],
                    run_id=turn.run_id,
                    conversation_id=turn.conversation_id,
                    deferred_tool_results=turn.resume,
                ) as handle:
                    self.handle = handle
                    async for event in handle:
                        if isinstance(event, AgentRunResultEvent):
                            # The final write commits while the run closes (its spans end); the
                            # result is yielded once it is known to be stored (`_completed`).
                            outcome = event
                            self._complete(event.result)
                            continue
                        yield event
                        for extra in self._drained(event):
                            yield extra
            if outcome is not None:
                failure = await self._completed()
                if failure is None:
                    yield outcome
                    for extra in self._drained(outcome):
                        yield extra
        except Exception as error:
            failure = await self._fail(error)
        except BaseException:
            # Cancelled, or the consumer closed the stream: keep what was produced.
            self.interrupt()
            raise
        finally:
            await close_quietly(self.deps_stack)
        for extra in self._drained(None):
            yield extra
        if failure is not None:
            yield failure
        yield self._finished()

    def _drained(self, event: object | None) -> list[TurnEvent]:
        """The recorder's notices since the last event, and the durations of the calls whose result
        has been handed out (every one left once `event` is None: the run is over), taken off it.

        A tool can finish while the reader is still on an earlier event (the run gets ahead of a
        slow reader); its duration waits for its own result, which it must follow.
        """
        if isinstance(event, ToolResultEvent):
            self.results_out.add(event.tool_call_id)
        elif isinstance(event, PartStartEvent) and isinstance(event.part, NativeToolReturnPart):
            self.results_out.add(event.part.tool_call_id)
        recorder = self.recorder
        if not recorder.timings and not recorder.notices:
            return []
        shown = self.results_out
        ready = [t for t in recorder.timings if event is None or t.tool_call_id in shown]
        if ready:
            recorder.timings[:] = [
                t for t in recorder.timings if not (event is None or t.tool_call_id in shown)
            ]
        extra: list[TurnEvent] = [*ready, *recorder.notices]
        recorder.notices.clear()
        return extra

    def _finished(self) -> TurnFinished:
        """The last event: an id is None when its row could not be stored."""
        usage = self._usage()
        turn = self.turn
        lost_conversation = self.lost_start and turn.new_conversation
        return TurnFinished(
            conversation_id=None if lost_conversation else turn.conversation_id,
            message_id=None if self.lost_start or self.lost_answer else turn.assistant_message_id,
            user_message_id=None if self.lost_start else turn.user_message_id,
            run_id=turn.run_id,
            status=self.status,
            saved=self.saved,
            model=self.recorder.model_name or turn.model_name,
            provider=self.recorder.provider_name or turn.provider,
            usage=usage,
            cost=self.recorder.run_cost(),
            currency=_currency(turn),
            duration_ms=self.duration_ms,
            stateless=turn.target.stateless,
            awaiting=[call.tool_call_id for call in self.paused],
        )

    def _usage(self) -> Any:
        if self.result is not None:
            return self.result.usage
        if self.handle is not None:
            try:
                return self.handle.usage
            except Exception:
                return None
        return None

    def _messages(self) -> list[ModelMessage]:
        if self.result is not None:
            return self.result.new_messages()
        if self.handle is not None:
            try:
                return list(self.handle.new_messages())
            except Exception:
                return []
        return []

    # -- endings -------------------------------------------------------------------------

    def _complete(self, result: AgentRunResult[Any]) -> None:
        """The run finished: queue its answer (the final write), without waiting for it."""
        self.result = result
        self.paused = paused_calls(result.output)
        self.recorder.record_paused(self.paused)
        self.final = self._start_save(self._end('complete'))

    async def _completed(self) -> TurnFailed | None:
        """Wait for the final write queued by `_complete`; the failure to show when the store could
        not take it."""
        assert self.final is not None
        try:
            await self._finish_save(self.final)
        except TurnNotSaved as not_saved:
            return TurnFailed.from_exception(not_saved, recoverable=True)
        return None

    async def _fail(self, error: Exception) -> TurnFailed:
        """The run (or its setup) raised: store the error card, and describe it."""
        failure = TurnFailed.from_exception(error, recoverable=is_recoverable(error))
        failure.interrupted_tools = [c for c, s in self.recorder.statuses.items() if s == 'interrupted']
        self._reopen()
        if isinstance(error, MissingApiKey):
            failure.message = scrub(str(error))
        record = ErrorRecord(
            message_id=new_id(),
            exception_class=failure.exception_class,
            message=failure.message,
            traceback=failure.traceback,
            recoverable=failure.recoverable,
            provider=failure.provider,
        )
        try:
            await self._save(self._end('failed', error=record), run_error=error)
        except TurnNotSaved as not_saved:
            # The card says the turn was not saved; `error` stays the run's own exception.
            return replace(TurnFailed.from_exception(not_saved, recoverable=True), error=error)
        return failure

    def interrupt(self) -> None:
        """The stream was cancelled: queue the partial answer without waiting (we are cancelled)."""
        if not self.ended:
            self._reopen()
            self.writes.submit(end_turn(self._end('interrupted'), started=self.begun))

    def _reopen(self) -> None:
        """A resumed run that did not complete: its decisions are given back, the calls wait again."""
        if self.turn.claimed:
            self.writes.submit(reopen_decisions(self.turn.claimed))

    async def _save(self, end: TurnEnd, run_error: BaseException | None = None) -> None:
        """The final write; raises `TurnNotSaved` unless it and every earlier write of the turn committed."""
        await self._finish_save(self._start_save(end), run_error)

    def _start_save(self, end: TurnEnd) -> Future[Any]:
        """Queue the final write (committed at once, with everything queued before it)."""
        return self.writes.start(end_turn(end, started=self.begun))

    async def _finish_save(self, final: Future[Any], run_error: BaseException | None = None) -> None:
        """Wait for the final write; raises `TurnNotSaved` unless it and every earlier write of the
        turn committed."""
        turn = self.turn
        await self.spending.flush()  # the app's usage recorder hears of the rows `_end` queued
        try:
            written = await asyncio.wrap_future(final)
        except Exception as exc:
            cause: BaseException = exc
            written = False
            self.lost_answer = True
            if not self._start_failed():
                # Awaited, so its commit cannot clear the failure reported below for /api/health.
                with suppress(Exception):
                    await self.queue.run(abandon_turn(turn.assistant_message_id, turn.conversation_id))
        else:
            if self.writes.failure is None:
                self.saved = True
                return
            cause = self.writes.failure
        self.saved = False
        self.queue.report(cause)  # kept for /api/health after the turn's last write
        if self._start_failed():
            self.lost_start = True
            if turn.attachments:
                await anyio.to_thread.run_sync(
                    remove_files, self.attachments_dir, turn.conversation_id, turn.user_message_id
                )
        partly = written and not self.lost_start
        raise TurnNotSaved(cause, partly=partly, run_error=run_error) from cause

    def _start_failed(self) -> bool:
        begun = self.begun
        return begun is not None and begun.done() and begun.exception() is not None

    def _end(self, status: str, *, error: ErrorRecord | None = None) -> TurnEnd:
        self.ended = True
        self.status = status
        self.duration_ms = round((time.perf_counter() - self.started) * 1000)
        messages = self._messages()
        # Queued before the final write, so the totals it reconciles include them.
        self.recorder.record_unfinished(messages)
        self._record_contexts()
        result = self.result
        has_output = result is not None and not self.paused
        output = result.output if result is not None else None
        parts = display_parts(messages, output, has_output=has_output)
        usage = self._usage()
        return TurnEnd(
            assistant_message_id=self.turn.assistant_message_id,
            conversation_id=self.turn.conversation_id,
            status=status,
            # Secrets redacted: a failed fallback attempt keeps the provider's error in the messages.
            content=scrub(answer_text(parts, output, has_output=has_output)),
            parts=scrub_value(parts),
            model_messages=scrub_value(dump_messages(messages)) if messages else None,
            usage=jsonable(usage) if usage is not None else None,
            input_tokens=self.recorder.input_tokens,
            output_tokens=self.recorder.output_tokens,
            cost=self.recorder.run_cost(),
            duration_ms=self.duration_ms,
            meta=self.turn.meta(
                model=self.recorder.model_name or self.turn.model_name,
                provider=self.recorder.provider_name or self.turn.provider,
                finish_reason=result.response.finish_reason if result is not None else None,
                llm_calls=self.recorder.llm_calls,
                **({'awaiting': [call.tool_call_id for call in self.paused]} if self.paused else {}),
            ),
            error=error,
            notices=[(n.message, {'kind': n.kind, **n.data}) for n in self.recorder.all_notices],
            tool_count=self.recorder.tool_count,
            claimed=self.turn.claimed,
        )

    def _record_contexts(self) -> None:
        """Queue what filled each prompt of the turn (the rows are built in the writer thread)."""
        recorder, turn = self.recorder, self.turn
        if not recorder.prompts:
            return
        snapshots, tokens = list(recorder.prompts), list(recorder.input_per_request)
        texts = wants_debug(turn.settings or Settings(), turn.origin, turn.target.slug, turn.target.agent)
        self.writes.submit(
            record_contexts(
                lambda: context_rows(
                    snapshots,
                    tokens,
                    conversation_id=turn.conversation_id,
                    message_id=turn.assistant_message_id,
                    texts=texts,
                )
            )
        )


def _currency(turn: PreparedTurn) -> str:
    """The currency of the turn's cost: the ledger's reference currency."""
    return turn.settings.reference_currency if turn.settings is not None else Settings().reference_currency


def remove_files(attachments_dir: Path, conversation_id: str, message_id: str) -> None:
    """Remove a message's attachment folder, and its conversation's when that is left empty."""
    if not (is_valid_id(conversation_id) and is_valid_id(message_id)):
        return
    folder = attachments_dir / conversation_id / message_id
    remove_inside(attachments_dir, folder)
    with suppress(OSError):  # the conversation has other messages' files (or never had a folder)
        folder.parent.rmdir()


async def _make_deps(turn: PreparedTurn, stack: AsyncExitStack, writes: TurnWrites) -> Any:
    """The turn's deps (`chat/deps.py`); their teardown goes on `stack`. The values for a deps schema
    are stored on the conversation first (after `begin_turn`, which creates a new one)."""
    target = turn.target
    if target.deps_factory is None and target.deps_schema is None and target.deps_required:
        raise DepsUnavailable(missing_factory_hint(target.name, key=target.deps_key))
    if turn.deps_values is not None:
        writes.submit(remember_deps(turn.conversation_id, turn.deps_values))
    lifetime = lifetime_of(target, turn.settings)
    return await open_deps(stack, target, turn.deps_values, lifetime=lifetime, cache=turn.deps_cache)
