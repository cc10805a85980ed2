"""Chunks: cut at paragraphs, then sentences, then words; never longer than asked (but for one long
word alone), never empty, no word lost, overlap within a section only."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synapse_agents.retrieval.chunking import Chunk, chunk_sections
from synapse_agents.retrieval.extract import Section


def words(text: str) -> list[str]:
    return text.split()


def in_order(needles: list[str], haystack: list[str]) -> bool:
    """Whether `needles` is a subsequence of `haystack`."""
    remaining = iter(haystack)
    return all(any(word == candidate for candidate in remaining) for word in needles)


def test_a_short_section_is_one_chunk_with_its_page_and_heading() -> None:
    assert chunk_sections([Section('Owls hunt at night.', page=3, heading='Owls')]) == [
        Chunk('Owls hunt at night.', page=3, heading='Owls')
    ]


def test_paragraphs_are_packed_together_while_they_fit() -> None:
    text = 'aaaa aaaa\n\nbbbb bbbb\n\ncccc cccc'
    assert [c.text for c in chunk_sections([Section(text)], max_chars=20, overlap=0)] == [
        'aaaa aaaa\n\nbbbb bbbb',
        'cccc cccc',
    ]


def test_a_long_paragraph_is_cut_at_sentence_ends() -> None:
    text = 'One two three. "Four five six?" Seven eight nine!'
    assert [c.text for c in chunk_sections([Section(text)], max_chars=20, overlap=0)] == [
        'One two three.',
        '"Four five six?"',
        'Seven eight nine!',
    ]


def test_a_long_sentence_is_cut_at_words_and_a_longer_word_stays_whole() -> None:
    text = 'alpha beta gamma delta ' + 'x' * 30 + ' omega'
    assert [c.text for c in chunk_sections([Section(text)], max_chars=16, overlap=0)] == [
        'alpha beta gamma',
        'delta',
        'x' * 30,
        'omega',
    ]


def test_each_chunk_after_the_first_starts_with_the_last_words_of_the_one_before() -> None:
    text = 'one two three four five six seven eight nine ten'
    chunks = [c.text for c in chunk_sections([Section(text)], max_chars=20, overlap=10)]
    # 'three four' is 10 characters, 'seven eight' 11: at most 10 characters of whole words repeat.
    assert chunks == ['one two three four', 'three four five six', 'five six seven eight', 'eight nine ten']


def test_overlap_does_not_cross_sections_and_each_keeps_its_page() -> None:
    chunks = chunk_sections(
        [Section('one two three four five', page=1), Section('six seven', page=2, heading='H')],
        max_chars=14,
        overlap=8,
    )
    assert chunks == [
        Chunk('one two three', page=1),
        Chunk('three four', page=1),
        Chunk('four five', page=1),
        Chunk('six seven', page=2, heading='H'),
    ]


def test_blank_sections_give_no_chunk() -> None:
    assert chunk_sections([Section('  \n\n \t'), Section('')]) == []


@pytest.mark.parametrize(('max_chars', 'overlap'), [(0, 0), (10, 10), (10, -1), (-5, 0)])
def test_impossible_sizes_are_refused(max_chars: int, overlap: int) -> None:
    with pytest.raises(ValueError, match='must be'):
        chunk_sections([Section('text')], max_chars=max_chars, overlap=overlap)


# -- properties --------------------------------------------------------------------------------

WORD = st.text(alphabet='abcdefghijklmnopqrstuvwxyzé0123456789-\'"', min_size=1, max_size=40)
SEPARATOR = st.sampled_from([' ', ' ', ' ', '  ', '\n', '\n\n', '\n \n\n', '. ', '! ', '? ', '.\n\n', '\t'])


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(WORD, SEPARATOR), max_size=80))
    return ''.join(word + separator for word, separator in parts)


SECTIONS = st.lists(
    st.builds(
        Section,
        texts(),
        st.none() | st.integers(min_value=1, max_value=500),
        st.none() | st.sampled_from(['Intro', 'Intro > Details']),
    ),
    max_size=6,
)


@st.composite
def sizes(draw: st.DrawFn) -> tuple[int, int]:
    max_chars = draw(st.integers(min_value=1, max_value=300))
    return max_chars, draw(st.integers(min_value=0, max_value=max_chars - 1))


@settings(max_examples=300, deadline=None)
@given(sections=SECTIONS, size=sizes())
def test_no_word_is_lost_no_chunk_is_too_long_or_empty(
    sections: list[Section], size: tuple[int, int]
) -> None:
    max_chars, overlap = size
    chunks = chunk_sections(sections, max_chars=max_chars, overlap=overlap)
    for chunk in chunks:
        assert chunk.text.strip() == chunk.text != ''
        assert len(chunk.text) <= max_chars or len(words(chunk.text)) == 1
    source = [word for section in sections for word in words(section.text)]
    assert in_order(source, [word for chunk in chunks for word in words(chunk.text)])
    # Overlap never crosses sections: each section is chunked as if alone, with its page and heading.
    alone = [chunk_sections([section], max_chars=max_chars, overlap=overlap) for section in sections]
    assert chunks == [chunk for group in alone for chunk in group]
    for section, group in zip(sections, alone, strict=True):
        assert all((chunk.page, chunk.heading) == (section.page, section.heading) for chunk in group)
        assert in_order(words(section.text), [word for chunk in group for word in words(chunk.text)])
        assert bool(group) == bool(words(section.text))


@settings(max_examples=200, deadline=None)
@given(sections=SECTIONS, max_chars=st.integers(min_value=1, max_value=300))
def test_without_overlap_the_chunks_hold_exactly_the_words_of_the_sections(
    sections: list[Section], max_chars: int
) -> None:
    chunks = chunk_sections(sections, max_chars=max_chars, overlap=0)
    assert [w for c in chunks for w in words(c.text)] == [w for s in sections for w in words(s.text)]


def overlaps(before: str, after: str, overlap: int) -> list[int]:
    """The word counts `n` such that `after` may begin with the last `n` words of `before` as its
    overlap: those words, as written at the start of `after`, fit in `overlap` characters."""
    spans = [match.end() for match in re.finditer(r'\S+', after)]
    counts = [0]
    for n in range(1, len(spans) + 1):
        if spans[n - 1] > overlap:
            break
        if words(before)[-n:] == words(after)[:n]:
            counts.append(n)
    return counts


@settings(max_examples=300, deadline=None)
@given(text=texts(), size=sizes())
def test_chunks_less_their_overlap_are_the_text_word_for_word(text: str, size: tuple[int, int]) -> None:
    max_chars, overlap = size
    chunks = [chunk.text for chunk in chunk_sections([Section(text)], max_chars=max_chars, overlap=overlap)]
    source = words(text)
    # The positions in the text that the chunks so far may have reached, for each reading of where
    # each chunk's overlap ends (a repeated word can be read more than one way).
    reached = {0}
    for index, chunk in enumerate(chunks):
        counts = overlaps(chunks[index - 1], chunk, overlap) if index else [0]
        reached = {
            position + len(words(chunk)) - n
            for position in reached
            for n in counts
            if words(chunk)[n:] == source[position : position + len(words(chunk)) - n]
        }
        assert reached, f'chunk {index} {chunk!r} is not the next part of the text'
    assert len(source) in reached
