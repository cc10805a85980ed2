"""Chat turns: run one turn of an agent, stream it, record it, replay the conversation.

See docs/chat.md. `ChatEngine` runs turns against a store; `TurnTarget` is what it runs (an agent
with the facts discovery found about it); `Recorder` is the per-run recording capability.
"""

from .engine import ChatEngine, PreparedTurn, TurnInput, TurnRejected
from .recorder import Recorder
from .target import TurnTarget

__all__ = ['ChatEngine', 'PreparedTurn', 'Recorder', 'TurnInput', 'TurnRejected', 'TurnTarget']
