"""Chat turns: run one turn of an agent, yield its events, record it, replay the conversation.

See docs/chat.md. `ChatEngine` runs turns against a store; a `TurnRequest` says what to run (a
`TurnTarget`: an agent with the facts discovery found about it) and how; the turn yields
pydantic-ai's events plus Synapse's (`chat.events`); `Recorder` is the per-run recording capability.
"""

from ..events import Notice, TurnEvent, TurnFailed, TurnFinished, TurnStarted
from ..scope import Scope
from ..targets.target import TurnTarget
from .engine import TURN_REFUSALS, ChatEngine, PreparedTurn
from .recorder import Recorder
from .request import TurnRequest

__all__ = [
    'TURN_REFUSALS',
    'ChatEngine',
    'Notice',
    'PreparedTurn',
    'Recorder',
    'Scope',
    'TurnEvent',
    'TurnFailed',
    'TurnFinished',
    'TurnRequest',
    'TurnStarted',
    'TurnTarget',
]
