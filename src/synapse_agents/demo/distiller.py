"""The demo model's memory distiller: scripted memories from a transcript, offline and free.

It reads the user's lines of the transcript it is given and keeps their plain statements: those
in the first person ("I prefer ...", "my ...") as personal memories in the person's voice, the
others that state something ("We bill fortnightly.", "The Madrid office closes at six.") as
shared ones. Questions and greetings are dropped. It answers through the run's output tool, as a
provider's model would, so the distiller runs the same way on it as on a paid one.
"""

from __future__ import annotations

import re

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

MODEL_NAME = 'synapse-demo-distiller'
_SENTENCE = re.compile(r'[^.!?\n]+[.!?]?')
_FIRST_PERSON = re.compile(r"^(i|i'm|i am|my|i've|i'd)\b", re.IGNORECASE)
_SMALL_TALK = re.compile(r'^(hi|hello|hey|thanks|thank you|ok|okay|yes|no|please)\b', re.IGNORECASE)


def distil(transcript: str) -> tuple[list[str], list[str]]:
    """The shared and personal memories the demo keeps from `transcript` (`User: ...` lines)."""
    shared: list[str] = []
    personal: list[str] = []
    for line in transcript.splitlines():
        if not line.startswith('User:'):
            continue
        for sentence in _SENTENCE.findall(line.removeprefix('User:')):
            text = sentence.strip()
            if len(text.split()) < 3 or text.endswith('?') or _SMALL_TALK.match(text):
                continue
            text = text if text.endswith(('.', '!')) else f'{text}.'
            (personal if _FIRST_PERSON.match(text) else shared).append(text)
    return shared[:10], personal[:10]


def _respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    prompt = '\n'.join(
        part.content
        for message in messages
        for part in getattr(message, 'parts', ())
        if isinstance(part, UserPromptPart) and isinstance(part.content, str)
    )
    shared, personal = distil(prompt)
    tools = info.output_tools
    usage = RequestUsage(
        input_tokens=max(1, len(prompt) // 4), output_tokens=8 * (len(shared) + len(personal)) + 4
    )
    if not tools:
        return ModelResponse(
            parts=[TextPart('{"shared": [], "personal": []}')], usage=usage, model_name=MODEL_NAME
        )
    call = ToolCallPart(tools[0].name, {'shared': shared, 'personal': personal})
    return ModelResponse(parts=[call], usage=usage, model_name=MODEL_NAME, provider_name='synapse-demo')


def demo_distiller() -> FunctionModel:
    """The demo distiller as a pydantic-ai model."""
    return FunctionModel(_respond, model_name=MODEL_NAME)
