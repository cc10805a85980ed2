"""Reading a turn's events into its outcome: the one drain every front door uses.

`ChatEngine.stream` yields Synapse's own events around the run's (`events.py`). A consumer that is
not the wire encoder (the Python API's `Conversation`, the task runner) feeds each event to a
`TurnReader`, passes on the ones it returns True for, and reads the outcome from it at the end:

    reader = TurnReader()
    async for event in engine.stream(prepared):
        if reader.read(event):
            ...                      # the run's own events: pydantic-ai's, notices, tool timings
    reader.finished, reader.failure, reader.output
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai.run import AgentRunResult, AgentRunResultEvent

from ..events import TurnFailed, TurnFinished, TurnStarted


@dataclass
class TurnReader:
    """What a turn's events said about its outcome, as they are read."""

    started: TurnStarted | None = None
    """The turn's ids and model, once its first rows are queued."""
    failure: TurnFailed | None = None
    """The error card, when the run, its setup or saving it failed."""
    finished: TurnFinished | None = None
    """The last event: the stored ids, status, usage and cost (None: the turn was cut off)."""
    result: AgentRunResult[Any] | None = None
    """pydantic-ai's result of the run, once the answer is stored."""

    def read(self, event: Any) -> bool:
        """Keep what `event` says about the outcome; True for the run's own events (every event
        but `TurnStarted`, `TurnFailed`, `TurnFinished` and the run's `AgentRunResultEvent`)."""
        if isinstance(event, TurnStarted):
            self.started = event
        elif isinstance(event, TurnFailed):
            self.failure = event
        elif isinstance(event, TurnFinished):
            self.finished = event
        elif isinstance(event, AgentRunResultEvent):
            self.result = event.result
        else:
            return True
        return False

    @property
    def output(self) -> Any:
        """The run's output (None before its result event)."""
        return self.result.output if self.result is not None else None

    @property
    def error(self) -> BaseException | None:
        """The exception the turn failed with (None when it did not fail)."""
        if self.failure is None:
            return None
        return self.failure.error or RuntimeError(self.failure.message)
