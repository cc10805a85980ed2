"""What the demo model does for one request: fail, call tools, search, or answer.

The decision is a pure function of the request (messages, tools, output settings), returned as a
:class:`Plan` that both the streamed and the non-streamed paths of ``DemoModel`` render. The loop
is bounded by construction: the model calls function tools only on its first response of a user
turn; once it has responded in the turn (tool results are back) it always concludes.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai.messages import (
    FinishReason,
    ModelMessage,
    ModelResponsePart,
    NativeToolCallPart,
    NativeToolReturnPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.native_tools import AbstractNativeTool, WebSearchTool
from pydantic_ai.tools import ToolDefinition

from ._arguments import ArgumentBuilder
from ._conversation import read_turn
from ._prompt import PromptFacts, split_identifier, stem, stems_of
from ._replies import ReplyContext, call_signature, compose_reply, thinking_text, web_query, web_results
from ._triggers import error_for, find_trigger

PROVIDER_NAME = 'synapse'
"""The provider name the demo model reports, on responses and on native tool parts."""

_WEB_WORDS = ('search', 'web', 'online', 'internet', 'news', 'latest', 'look up', 'research', 'google')
_QUESTION_STARTS = ('what', 'who', 'when', 'where', 'how', 'why', 'which', 'is', 'are', 'does', 'can')


@dataclass
class Plan:
    """The response the demo model will give, or the error it will raise."""

    parts: list[ModelResponsePart] = field(default_factory=list[ModelResponsePart])
    error: Exception | None = None
    """Raised before any output (the provider rejected the request)."""
    interrupt: Exception | None = None
    """Raised part-way through the text (the connection dropped mid-stream)."""
    finish_reason: FinishReason = 'stop'


@dataclass(frozen=True)
class _Request:
    facts: PromptFacts
    params: ModelRequestParameters
    reply: ReplyContext
    thinking: bool


def plan_response(
    messages: Sequence[ModelMessage],
    params: ModelRequestParameters,
    *,
    instructions: str | None,
    model_name: str,
    thinking: bool,
    input_tokens: int,
    context_window: int,
) -> Plan:
    """Decide the demo model's response to one request."""
    turn = read_turn(messages)
    facts = PromptFacts.read(turn.prompt)
    if trigger := find_trigger(facts, 'error'):
        error = error_for(
            trigger, model_name=model_name, input_tokens=input_tokens, context_window=context_window
        )
        return Plan(error=error, finish_reason='error')
    tool_names = [tool.name for tool in _callable_tools(params)]
    reply = ReplyContext(
        turn=turn, facts=facts, model_name=model_name, instructions=instructions, tool_names=tool_names
    )
    request = _Request(facts, params, reply, thinking and params.thinking is not False)
    if trigger := find_trigger(facts, 'mid_stream_error'):
        plan = _answer(request, [])
        plan.interrupt = error_for(trigger, model_name=model_name)
        return plan
    if turn.responded or _asks_previous(facts):
        return _answer(request, [])
    native = _native_parts(request)
    if native:
        return _answer(request, native)
    if calls := _tool_calls(request):
        described = ', '.join(call_signature(call.tool_name, call.args_as_dict()) for call in calls)
        plan_text = f"The request matches this agent's tools, so I will call {described}."
        return Plan([*_thought(request, plan_text), *calls], finish_reason='tool_call')
    return _answer(request, [])


def _thought(request: _Request, plan: str) -> list[ModelResponsePart]:
    return [ThinkingPart(thinking_text(request.reply, plan))] if request.thinking else []


def _asks_previous(facts: PromptFacts) -> bool:
    trigger = find_trigger(facts, 'behaviour')
    return trigger is not None and trigger.key == 'previous_message'


def _answer(request: _Request, native: list[ModelResponsePart]) -> Plan:
    """The concluding response: structured output, JSON text, or a Markdown answer."""
    params, facts = request.params, request.facts
    web: list[dict[str, str]] = []
    simulated: list[str] = []
    for part in native:
        if isinstance(part, NativeToolReturnPart) and isinstance(part.content, dict):
            results = part.content.get('results')
            web += results if isinstance(results, list) else []
            if part.tool_name != WebSearchTool.kind:
                simulated.append(part.tool_name.replace('_', ' '))
    reply = replace(request.reply, web_results=web, simulated_tools=simulated)
    if output_tool := _output_tool(request):
        args = ArgumentBuilder(facts, output_tool.parameters_json_schema, fill_optional=True).build()
        plan = f'I have to answer with `{output_tool.name}`, so I will fill its fields from the conversation.'
        call = ToolCallPart(output_tool.name, args, tool_call_id=_call_id())
        return Plan([*_thought(request, plan), *native, call], finish_reason='tool_call')
    if params.output_mode in ('native', 'prompted') and params.output_object is not None:
        value = ArgumentBuilder(facts, params.output_object.json_schema, fill_optional=True).build()
        name = params.output_object.name or 'the output schema'
        plan = f'The answer must be JSON matching {name}; I will fill it from the message.'
        return Plan([*_thought(request, plan), *native, TextPart(json.dumps(value, ensure_ascii=False))])
    previous = _asks_previous(facts)
    summarise = any(
        word in (request.reply.instructions or '').lower() for word in ('summar', 'tl;dr')
    ) or any(facts.mentions(word) for word in ('summarise', 'summarize', 'summary', 'tldr'))
    text = compose_reply(reply, previous_asked=previous, summarise=summarise)
    if previous:
        plan = 'The user asks about an earlier message, so I will look back through the conversation.'
    elif reply.turn.tool_outcomes:
        names = ', '.join(sorted({o.tool_name for o in reply.turn.tool_outcomes}))
        plan = f'The tool results are back ({names}). I will summarise them for the user.'
    elif web:
        plan = 'The search results are in; I will cite them and say they are offline demo results.'
    else:
        plan = 'No tool is needed for this, so I will answer directly.'
    return Plan([*_thought(request, plan), *native, TextPart(text)])


def _output_tool(request: _Request) -> ToolDefinition | None:
    tools = request.params.output_tools
    if not tools:
        return None
    scored = sorted(tools, key=lambda tool: -_score(request.facts, tool))
    if not request.params.allow_text_output:
        return scored[0]
    return scored[0] if _score(request.facts, scored[0]) > 0 else None


def _name_stems(tool: ToolDefinition) -> set[str]:
    # An output tool is named `final_result`: the schema's title (the output type's name) says more.
    words = split_identifier(f'{tool.name} {tool.parameters_json_schema.get("title", "")}')
    return {stem(word) for word in words} - {'get', 'tool', 'final', 'result'}


def _score(facts: PromptFacts, tool: ToolDefinition, claimed: frozenset[str] = frozenset()) -> int:
    """How well a tool matches the prompt: name words count three times, description and parameters once.

    Words in ``claimed`` (those naming another tool) do not count in the description, so ``order``
    selects ``lookup_order`` without also selecting every tool whose description mentions orders.
    """
    described = stems_of(tool.description or '') | stems_of(
        ' '.join(tool.parameters_json_schema.get('properties', {}))
    )
    return 3 * len(_name_stems(tool) & facts.stems) + len((described & facts.stems) - claimed)


def _callable_tools(params: ModelRequestParameters) -> list[ToolDefinition]:
    # A deferred tool that has not been revealed yet is invisible to a model, so it is never called.
    return [tool for tool in params.function_tools if params.visibility_of(tool.name) != 'withheld']


def _tool_calls(request: _Request) -> list[ToolCallPart]:
    tools = _callable_tools(request.params)
    if not tools:
        return []
    trigger = find_trigger(request.facts, 'behaviour')
    if trigger is not None and trigger.key == 'all_tools':
        chosen = list(tools)
    else:
        scores = [(_score(request.facts, tool, _claimed(request.facts, tools, tool)), tool) for tool in tools]
        chosen = [tool for score, tool in scores if score >= 1]
        if not chosen and len(tools) == 1:
            chosen = list(tools)
    calls: list[ToolCallPart] = []
    for tool in chosen:
        exclude = set(split_identifier(tool.name)) | _claimed(request.facts, tools, tool)
        args = ArgumentBuilder(
            request.facts, tool.parameters_json_schema, fill_optional=False, exclude=exclude
        )
        calls.append(ToolCallPart(tool.name, args.build(), tool_call_id=_call_id()))
    return calls


def _claimed(facts: PromptFacts, tools: Sequence[ToolDefinition], tool: ToolDefinition) -> frozenset[str]:
    """The prompt's words that name one of the other tools."""
    return frozenset(
        word for other in tools if other is not tool for word in _name_stems(other) & facts.stems
    )


def _native_parts(request: _Request) -> list[ModelResponsePart]:
    parts: list[ModelResponsePart] = []
    for tool in request.params.native_tools:
        if isinstance(tool, WebSearchTool) and _wants_web(request):
            query = web_query(request.facts)
            content = {
                'notice': 'Offline demo results from the Synapse demo model; nothing was fetched.',
                'query': query,
                'results': web_results(query),
            }
            parts += _native_pair(tool, {'query': query}, content)
        elif not isinstance(tool, WebSearchTool) and _mentions_kind(request.facts, tool):
            content = {'notice': f'Offline demo: no real {tool.label} ran.', 'status': 'simulated'}
            parts += _native_pair(tool, {'input': request.facts.phrase()}, content)
    return parts


def _native_pair(
    tool: AbstractNativeTool, args: dict[str, Any], content: dict[str, Any]
) -> list[ModelResponsePart]:
    call_id = f'ntc_{uuid.uuid4().hex[:20]}'
    return [
        NativeToolCallPart(tool.kind, args, tool_call_id=call_id, provider_name=PROVIDER_NAME),
        NativeToolReturnPart(tool.kind, content, tool_call_id=call_id, provider_name=PROVIDER_NAME),
    ]


def _wants_web(request: _Request) -> bool:
    facts = request.facts
    trigger = find_trigger(facts, 'behaviour')
    if (trigger is not None and trigger.key == 'web_search') or any(facts.mentions(w) for w in _WEB_WORDS):
        return True
    question = facts.text.strip().endswith('?') or facts.lower.startswith(_QUESTION_STARTS)
    return question and not _callable_tools(request.params)


def _mentions_kind(facts: PromptFacts, tool: AbstractNativeTool) -> bool:
    words = {stem(word) for word in split_identifier(tool.kind)} - {'tool', 'server'}
    return bool(words & facts.stems)


def _call_id() -> str:
    return f'call_{uuid.uuid4().hex[:24]}'
