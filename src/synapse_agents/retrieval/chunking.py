"""Sections cut into chunks small enough to embed, each keeping its section's page and heading.

A section is split at paragraph breaks (blank lines) first; a paragraph longer than `max_chars` at
sentence ends; a sentence still longer at spaces. The pieces are packed greedily, in order, into
chunks of at most `max_chars` characters; only a single word longer than that makes a longer chunk
(alone). Each chunk after a section's first begins with the last words of the chunk before it (at
most `overlap` characters of whole words), so a sentence cut in two is found from either side;
overlap never crosses from one section into the next. No chunk is empty, and no word is lost:
every word of the sections appears in the chunks, in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .extract import Section

MAX_CHARS = 1200
"""The default longest chunk, in characters (the `rag_chunk_chars` setting's default)."""
OVERLAP = 150
"""The default overlap, in characters (the `rag_chunk_overlap` setting's default)."""

_PARAGRAPH_BREAK = re.compile(r'\n[ \t\f\v\r]*\n\s*')
# A sentence ends at . ! ? or an ellipsis (and their full-width forms), after any closing quotes.
_SENTENCE_END = re.compile('[.!?\u2026\u3002\uff01\uff1f]["\'\u201d\u2019)\\]]*(\\s+)')
_WORD = re.compile(r'\S+')


@dataclass(frozen=True)
class Chunk:
    """A piece of a document to embed: its text, and the page and heading of its section."""

    text: str
    page: int | None = None
    heading: str | None = None


def chunk_sections(
    sections: Iterable[Section], *, max_chars: int = MAX_CHARS, overlap: int = OVERLAP
) -> list[Chunk]:
    """The chunks of `sections`, in order (see the module's docstring for how text is cut).

    `max_chars` must be at least 1 and `overlap` from 0 to less than `max_chars`."""
    if max_chars < 1:
        raise ValueError(f'max_chars must be at least 1, not {max_chars}')
    if not 0 <= overlap < max_chars:
        raise ValueError(f'overlap must be from 0 to less than max_chars ({max_chars}), not {overlap}')
    chunks: list[Chunk] = []
    for section in sections:
        chunks.extend(
            Chunk(text, section.page, section.heading)
            for text in _pack(_pieces(section.text, max_chars), max_chars, overlap)
        )
    return chunks


def _pieces(text: str, max_chars: int) -> Iterator[tuple[str, str]]:
    """Each piece of `text` with the separator that joins it to the piece before: paragraphs whole
    when they fit, else their sentences, else their words."""
    for paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        joiner = '\n\n'
        for piece in _fitting(paragraph, max_chars):
            yield piece, joiner
            joiner = ' '


def _fitting(paragraph: str, max_chars: int) -> Iterator[str]:
    if len(paragraph) <= max_chars:
        yield paragraph
        return
    for sentence in _sentences(paragraph):
        if len(sentence) <= max_chars:
            yield sentence
        else:
            yield from _WORD.findall(sentence)


def _sentences(paragraph: str) -> Iterator[str]:
    """The sentences of `paragraph`: cut at the spaces after `.`, `!` or `?` (and closing quotes)."""
    start = 0
    for end in _SENTENCE_END.finditer(paragraph):
        if sentence := paragraph[start : end.start(1)].strip():
            yield sentence
        start = end.end(1)
    if sentence := paragraph[start:].strip():
        yield sentence


def _pack(pieces: Iterable[tuple[str, str]], max_chars: int, overlap: int) -> Iterator[str]:
    current = ''
    for piece, joiner in pieces:
        if not current:
            current = piece
        elif len(current) + len(joiner) + len(piece) <= max_chars:
            current += joiner + piece
        else:
            yield current
            tail = _tail(current, min(overlap, max_chars - len(piece) - len(joiner)))
            current = f'{tail}{joiner}{piece}' if tail else piece
    if current:
        yield current


def _tail(text: str, limit: int) -> str:
    """The longest run of whole words that ends `text` and is at most `limit` characters long."""
    if limit <= 0:
        return ''
    for word in _WORD.finditer(text):
        if len(text) - word.start() <= limit:
            return text[word.start() :]
    return ''
