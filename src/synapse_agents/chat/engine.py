"""One chat turn: history in, events out, everything recorded. See docs/chat.md.

`ChatEngine.prepare` does the checks and reads that must happen before a stream starts (the
conversation exists and belongs to the agent, earlier turns as history, uploads saved); its errors
are the route's 4xx answers. `ChatEngine.stream` then yields the UI message stream: it queues the
turn's first rows, runs `agent.run_stream_events` with the per-run `Recorder` capability, encodes
each event as soon as it exists, and stores the answer. One catch-all covers everything from
building the model and the deps to the last event: any exception becomes an error row and an
`error` chunk followed by `finish`. A client that goes away cancels the run; what it produced is
stored as interrupted.

Database I/O never runs on the event loop: reads go to the threadpool, writes to the store's
`WriteQueue` (whose thread commits them in batches). The stream waits for the database once, for
the final write, just before `finish`.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio.to_thread
from pydantic_ai.messages import AgentStreamEvent, ModelMessage, UserContent
from pydantic_ai.models import Model
from pydantic_ai.run import AgentRunResult

from ..protocol import Notice, SynapseEventStream, TurnFailure, encode_chunk
from ..store import Conversation, Store
from ..store.ids import new_id
from ..store.recording import ErrorRecord, TurnEnd, TurnStart, begin_turn, end_turn
from ..store.write_queue import WriteQueue
from .attachments import SavedAttachment, Upload, save_uploads
from .models import DEMO_MODEL_ID, MissingApiKey, build_model
from .outcome import answer_text, display_parts, dump_messages, is_recoverable, usage_cost, usage_summary
from .recorder import Recorder
from .replay import load_history
from .target import TurnTarget


class TurnRejected(Exception):
    """The request cannot start a turn (unknown conversation, another agent's conversation)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class DepsUnavailable(RuntimeError):
    """The agent needs deps and Synapse has no factory to build them."""


@dataclass
class TurnInput:
    """A chat request: the agent, the message and its files, and the options."""

    target: TurnTarget
    message: str
    uploads: list[Upload] = field(default_factory=list)
    conversation_id: str | None = None
    model_id: str | None = None


@dataclass
class PreparedTurn:
    """A turn ready to stream: ids decided, history loaded, files saved, model chosen."""

    target: TurnTarget
    message: str
    conversation_id: str
    new_conversation: bool
    run_id: str
    user_message_id: str
    assistant_message_id: str
    history: list[ModelMessage]
    attachments: list[SavedAttachment]
    model: Model | None
    model_name: str | None
    provider: str | None
    setup_error: BaseException | None = None


class ChatEngine:
    """Runs chat turns against one store."""

    def __init__(self, store: Store, writes: WriteQueue) -> None:
        self.store = store
        self.writes = writes

    @property
    def attachments_dir(self) -> Path:
        return self.store.attachments_dir

    async def prepare(self, turn: TurnInput) -> PreparedTurn:
        """Check the request and load what the run needs; raises `TurnRejected` for a 4xx answer."""
        target = turn.target
        history: list[ModelMessage] = []
        new_conversation = turn.conversation_id is None
        conversation_id = turn.conversation_id or new_id()
        if not new_conversation:
            conversation = await anyio.to_thread.run_sync(self.store.get_conversation, conversation_id)
            _check_conversation(conversation, conversation_id, target.slug)
            if not target.stateless:
                history = await anyio.to_thread.run_sync(
                    load_history, self.store, conversation_id, self.attachments_dir
                )
        user_message_id = new_id()
        saved: list[SavedAttachment] = []
        if turn.uploads:
            saved = await anyio.to_thread.run_sync(
                save_uploads, self.attachments_dir, conversation_id, user_message_id, turn.uploads
            )
        model, name, provider, error = _choose_model(target, turn.model_id)
        return PreparedTurn(
            target=target,
            message=turn.message,
            conversation_id=conversation_id,
            new_conversation=new_conversation,
            run_id=new_id(),
            user_message_id=user_message_id,
            assistant_message_id=new_id(),
            history=history,
            attachments=saved,
            model=model,
            model_name=name,
            provider=provider,
            setup_error=error,
        )

    async def stream(self, turn: PreparedTurn) -> AsyncIterator[str]:
        """The turn as server-sent events, each yielded the moment it exists."""
        run = _Turn(self, turn)
        async for chunk in run.stream():
            yield chunk


class _Turn:
    """The state of one streaming turn."""

    def __init__(self, engine: ChatEngine, turn: PreparedTurn) -> None:
        self.engine = engine
        self.turn = turn
        self.started = time.perf_counter()
        self.handle: Any = None
        self.result: AgentRunResult[Any] | None = None
        self.duration_ms: int | None = None
        self.ended = False
        self.recorder = Recorder(
            writes=engine.writes,
            conversation_id=turn.conversation_id,
            message_id=turn.assistant_message_id,
            run_id=turn.run_id,
            agent_key=turn.target.slug,
        )

    # -- the stream ----------------------------------------------------------------------

    async def stream(self) -> AsyncIterator[str]:
        turn = self.turn
        self.engine.writes.submit(
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
                    meta={'model': turn.model_name, 'provider': turn.provider},
                )
            )
        )
        encoder = SynapseEventStream(
            server_message_id=turn.assistant_message_id, metadata=self.metadata, on_failure=self.fail
        )
        try:
            async for chunk in encoder.transform_stream(self.events(), on_complete=self.complete):
                yield encode_chunk(chunk)
        except BaseException:
            # The client went away (cancellation) or the server is stopping: keep what was produced.
            self.interrupt()
            raise

    async def events(self) -> AsyncIterator[Any]:
        turn = self.turn
        if turn.setup_error is not None:
            raise turn.setup_error
        agent = turn.target.agent
        if agent is None:
            raise RuntimeError(f'agent {turn.target.slug!r} is not available')
        deps = await _make_deps(turn.target)
        prompt: str | list[UserContent] = turn.message
        if turn.attachments:
            prompt = [turn.message, *(a.content() for a in turn.attachments)]
        async with agent.run_stream_events(
            prompt,
            message_history=turn.history or None,
            model=turn.model,
            deps=deps,
            capabilities=[self.recorder],
        ) as handle:
            self.handle = handle
            async for event in handle:
                yield event
                if self.recorder.notices:
                    notices = list(self.recorder.notices)
                    self.recorder.notices.clear()
                    for notice in notices:
                        yield notice

    # -- metadata ------------------------------------------------------------------------

    def metadata(self) -> dict[str, Any]:
        usage = self._usage()
        return {
            'conversation_id': self.turn.conversation_id,
            'message_id': self.turn.assistant_message_id,
            'user_message_id': self.turn.user_message_id,
            'model': self.recorder.model_name or self.turn.model_name,
            'provider': self.recorder.provider_name or self.turn.provider,
            'usage': usage_summary(usage),
            'cost': usage_cost(usage),
            'currency': 'USD',
            'duration_ms': self.duration_ms,
            'stateless': self.turn.target.stateless,
        }

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

    async def complete(self, result: AgentRunResult[Any]) -> None:
        """The run finished: store the answer, then the stream sends the final metadata."""
        self.result = result
        await self.engine.writes.run(end_turn(self._end('complete')))

    async def fail(self, error: Exception) -> TurnFailure:
        """The run (or its setup) raised: store the error card; the stream shows it."""
        failure = TurnFailure.from_exception(error, recoverable=is_recoverable(error))
        record = ErrorRecord(
            message_id=new_id(),
            exception_class=failure.exception_class,
            message=failure.message,
            traceback=failure.traceback,
            recoverable=failure.recoverable,
        )
        if isinstance(error, MissingApiKey):
            failure.message = str(error)
            record.message = str(error)
        await self.engine.writes.run(end_turn(self._end('interrupted', error=record)))
        return failure

    def interrupt(self) -> None:
        """The stream was cancelled: queue the partial answer without waiting (we are cancelled)."""
        if not self.ended:
            self.engine.writes.submit(end_turn(self._end('interrupted')))

    def _end(self, status: str, *, error: ErrorRecord | None = None) -> TurnEnd:
        self.ended = True
        self.duration_ms = round((time.perf_counter() - self.started) * 1000)
        messages = self._messages()
        result = self.result
        has_output = result is not None
        output = result.output if result is not None else None
        parts = display_parts(messages, output, has_output=has_output)
        usage = self._usage()
        summary = usage_summary(usage)
        from ..protocol.encoder import jsonable

        return TurnEnd(
            assistant_message_id=self.turn.assistant_message_id,
            conversation_id=self.turn.conversation_id,
            status=status,
            content=answer_text(parts, output, has_output=has_output),
            parts=parts,
            model_messages=dump_messages(messages) if messages else None,
            usage=jsonable(usage) if usage is not None else None,
            input_tokens=summary['input_tokens'],
            output_tokens=summary['output_tokens'],
            cost=usage_cost(usage),
            duration_ms=self.duration_ms,
            meta={
                'model': self.recorder.model_name or self.turn.model_name,
                'provider': self.recorder.provider_name or self.turn.provider,
                'finish_reason': result.response.finish_reason if result is not None else None,
                'llm_calls': self.recorder.llm_calls,
            },
            error=error,
            notices=[(n.message, {'kind': n.kind, **n.data}) for n in self.recorder.all_notices],
            tool_count=self.recorder.tool_count,
        )


def _check_conversation(conversation: Conversation | None, conversation_id: str, slug: str) -> None:
    if conversation is None:
        raise TurnRejected(404, f'No conversation with id {conversation_id!r}.')
    if conversation.agent_key != slug:
        raise TurnRejected(
            409,
            f'Conversation {conversation_id!r} belongs to agent {conversation.agent_key!r}, not {slug!r}.',
        )


def _choose_model(
    target: TurnTarget, model_id: str | None
) -> tuple[Model | None, str | None, str | None, BaseException | None]:
    """The model to pass to the run (None: the agent's own), its name and provider, or the error."""
    agent_model = target.agent.model if target.agent is not None else None
    chosen = model_id or target.own_model_id or DEMO_MODEL_ID
    if chosen == target.own_model_id and agent_model is not None:
        if target.missing_env:
            return None, None, None, MissingApiKey(chosen, target.missing_env)
        if isinstance(agent_model, Model):
            return None, agent_model.model_name, agent_model.system, None
        provider, _, name = agent_model.partition(':')
        return None, name or agent_model, provider or None, None
    try:
        model = build_model(chosen)
    except Exception as exc:
        return None, None, None, exc
    return model, model.model_name, model.system, None


async def _make_deps(target: TurnTarget) -> Any:
    if target.deps_factory is None:
        if target.deps_required:
            raise DepsUnavailable(
                f'{target.name} needs deps, and no deps factory is set: add '
                "metadata={'synapse.deps_factory': 'module:function'} to the agent."
            )
        return None
    deps = target.deps_factory()
    if inspect.isawaitable(deps):
        deps = await deps
    return deps


__all__ = ['AgentStreamEvent', 'ChatEngine', 'Notice', 'PreparedTurn', 'TurnInput', 'TurnRejected']
