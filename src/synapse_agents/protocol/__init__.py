"""The wire format of a chat turn: the Vercel AI SDK UI message stream, with Synapse's additions."""

from .encoder import (
    STREAM_HEADERS,
    Notice,
    SynapseEventStream,
    TurnFailure,
    encode_chunk,
    native_tool_status,
)

__all__ = [
    'STREAM_HEADERS',
    'Notice',
    'SynapseEventStream',
    'TurnFailure',
    'encode_chunk',
    'native_tool_status',
]
