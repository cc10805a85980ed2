"""The words the demo model says: its thinking and its Markdown answers.

Every reply is scripted from what the request holds (the prompt, earlier prompts, tool results,
the agent's instructions and tools), so it reads like an answer while being obviously a demo.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._conversation import ToolOutcome, Turn
from ._prompt import PromptFacts, keywords_of, shorten, word_set

_WEB_STOP = word_set('search web online internet latest news google look up research about')


@dataclass(frozen=True)
class ReplyContext:
    """What a reply is written from."""

    turn: Turn
    facts: PromptFacts
    model_name: str
    instructions: str | None = None
    tool_names: Sequence[str] = ()
    web_results: Sequence[dict[str, str]] = field(default_factory=list[dict[str, str]])
    simulated_tools: Sequence[str] = ()
    """Labels of other native tools the model 'ran' in this response (offline, nothing really ran)."""


def web_query(facts: PromptFacts) -> str:
    """The query the demo model 'searches the web' for."""
    return facts.phrase(exclude=_WEB_STOP) or 'pydantic-ai agents'


def web_results(query: str) -> list[dict[str, str]]:
    """Canned, clearly labelled offline search results for ``query``."""
    slug = re.sub(r'[^a-z0-9]+', '-', query.lower()).strip('-') or 'demo'
    title = query[:1].upper() + query[1:]
    return [
        {
            'title': f'{title}: an overview [offline demo result]',
            'url': f'https://example.com/articles/{slug}',
            'snippet': f'A canned summary about {query}. The Synapse demo model never goes online.',
        },
        {
            'title': f'Frequently asked questions about {query} [offline demo result]',
            'url': f'https://example.org/faq/{slug}',
            'snippet': 'Placeholder answers written for the offline demo; no real page was fetched.',
        },
        {
            'title': f'{title} in practice [offline demo result]',
            'url': f'https://example.net/guides/{slug}',
            'snippet': 'A third canned result, so lists and citations have something to render.',
        },
    ]


def previous_message_reply(ctx: ReplyContext) -> str:
    """The answer to "what did I say before?"."""
    earlier = ctx.turn.earlier_prompts
    if not earlier:
        return (
            "I don't have any earlier message from you in this conversation: this is the first one I see. "
            '(A stateless agent never receives its history, so it always answers this way.)'
        )
    first = ctx.facts.mentions('first message')
    quoted = earlier[0] if first else earlier[-1]
    which = 'first' if first else 'previous'
    count = len(earlier)
    return (
        f'Your {which} message was:\n\n> {shorten(quoted, 400)}\n\n'
        f'I can see {count} earlier message{"s" if count != 1 else ""} from you in this conversation.'
    )


def tool_results_reply(outcomes: Sequence[ToolOutcome]) -> str:
    """An answer that restates the results of the tools called in this turn."""
    lines = ["Here's what I found using the agent's tools:", '']
    for outcome in outcomes:
        result = shorten(outcome.content, 400)
        if outcome.succeeded:
            lines.append(f'- **`{outcome.tool_name}`** returned: {result}')
        else:
            lines.append(f'- **`{outcome.tool_name}`** did not succeed: {result}')
    failed = sum(1 for outcome in outcomes if not outcome.succeeded)
    lines.append('')
    if failed:
        lines.append(
            f'{failed} of {len(outcomes)} tool calls had a problem, so part of this answer is missing.'
        )
    else:
        lines.append('Let me know if you need anything else about this.')
    return '\n'.join(lines)


def web_reply(ctx: ReplyContext) -> str:
    """An answer citing the canned web search results."""
    query = web_query(ctx.facts)
    lines = [f'I searched the web for **{query}**. These are *offline demo results*, not live data:', '']
    for number, result in enumerate(ctx.web_results, start=1):
        lines.append(f'{number}. [{result["title"]}]({result["url"]}) — {result["snippet"]}')
    lines += ['', 'With a real model and provider, this search would return live pages.']
    return '\n'.join(lines)


def summary_reply(ctx: ReplyContext) -> str:
    """A 'summary' of the prompt: its first sentence and its key terms."""
    text = ctx.facts.quoted[0] if ctx.facts.quoted else ctx.turn.prompt
    lead = re.compile(r'^\s*(please\s+)?(summari[sz]e|tl;?dr)\b[:\s]*(this|the following)?[:\s]*', re.I)
    while lead.match(text) and lead.sub('', text, count=1) != text:
        text = lead.sub('', text, count=1)
    words = len(text.split())
    sentence = PromptFacts.read(text).first_sentence(200) if text.strip() else '(nothing to summarise)'
    terms = ', '.join(keywords_of(text)[:5]) or 'none'
    return f'**Summary** ({words} words in): {sentence}\n\n*Key terms:* {terms}.'


def default_reply(ctx: ReplyContext) -> str:
    """The answer when nothing more specific applies: what the demo model is and what to try."""
    prompt = ctx.facts.first_sentence(200) or '(an empty message)'
    lines = [
        f'**Demo reply** from `{ctx.model_name}`, the offline model Synapse uses when no API key is set. '
        'This answer is scripted, not understood.',
        '',
        f'You said: “{prompt}”',
        '',
    ]
    for label in ctx.simulated_tools:
        lines.append(f'- I called the native **{label}** tool; offline it was only simulated, nothing ran.')
    if ctx.turn.media_count:
        count = ctx.turn.media_count
        files = 'a file' if count == 1 else f'{count} files'
        lines.append(f'- You attached {files}: I counted it in the usage but cannot look at it.')
    if ctx.instructions:
        lines.append(f'- My instructions begin: “{shorten(ctx.instructions, 120)}”')
    if ctx.tool_names:
        names = ', '.join(f'`{name}`' for name in ctx.tool_names)
        lines.append(f'- I can call {names}: mention a word from a tool name or description to use it.')
    else:
        lines.append('- This agent has no function tools, so I answer directly.')
    lines.append('- Say “rate limit”, “auth error” or “fail mid-stream” to see how provider errors look.')
    lines.append('- Ask “what did I say before?” to check whether this agent keeps its history.')
    return '\n'.join(lines)


def compose_reply(ctx: ReplyContext, *, previous_asked: bool, summarise: bool) -> str:
    """The final text answer for the current turn."""
    if previous_asked:
        return previous_message_reply(ctx)
    if ctx.turn.tool_outcomes:
        return tool_results_reply(ctx.turn.tool_outcomes)
    if ctx.web_results:
        return web_reply(ctx)
    if summarise:
        return summary_reply(ctx)
    return default_reply(ctx)


def call_signature(name: str, args: dict[str, Any]) -> str:
    """``lookup_order(order_id='A-1001')``, for the thinking text."""
    rendered = ', '.join(f'{key}={shorten(repr(value), 60)}' for key, value in args.items())
    return f'{name}({rendered})'


def thinking_text(ctx: ReplyContext, plan: str) -> str:
    """The model's visible reasoning: what it read and what it is about to do."""
    prompt = ctx.facts.first_sentence(120)
    opening = f'The user wrote: “{prompt}”.' if prompt else 'There is no new user message.'
    history = len(ctx.turn.earlier_prompts)
    context = f' I can see {history} earlier message{"s" if history != 1 else ""} in the conversation.'
    return f'{opening}{context if history else ""} {plan}'
