"""Facts the demo model reads off a prompt: words, quoted phrases, numbers, ids, emails, names.

Everything here is plain regular-expression work on one string; nothing understands language. The
demo model uses these facts to pick tools and to fill argument values, so a prompt such as
``Where is order A-1001?`` produces ``lookup_order(order_id='A-1001')``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

_STOPWORD_TEXT = """
    a about above after again all am an and any are as at be been before being below between both but by
    can could did do does doing done down during each else few for from further had has have having he her
    here hers him his how i if in into is it its itself just let like me more most my myself no nor not now
    of off on once only or other our ours out over own please same she should so some such than that the
    their them then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your yours yourself hi hello hey thanks thank ok okay
    tell show give get find want need know make use using also maybe really much many one two via per
    args returns return given specified optional required value values default
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""Words that carry no meaning for tool selection or argument building."""

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'_-]*")
_QUOTED = re.compile(
    r'"([^"]+)"|\u201c([^\u201d]+)\u201d|\u2018([^\u2019]+)\u2019|(?<![A-Za-z0-9])\'([^\']+)\'(?![A-Za-z0-9])'
)
_EMAIL = re.compile(r'[\w.+-]+@[\w-]+(?:\.[\w-]+)+')
_URL = re.compile(r'https?://[^\s<>"\')\]]+')
_DATE = re.compile(r'\b\d{4}-\d{2}-\d{2}\b')
_PHONE = re.compile(r'(?<![\w-])\+?\d[\d ().-]{7,}\d(?![\w-])')
_ID_PATTERNS = (
    re.compile(r'(?<![\w-])([A-Za-z]{1,6}-\d+(?:-\d+)?|[A-Za-z]{1,6}\d{2,})(?![\w-])'),
    re.compile(r'#([A-Za-z0-9-]{2,})'),
    re.compile(
        r'\b(?:order|ticket|invoice|account|case|id|number|no\.?|ref)\s*(?:#|number|no\.?)?\s*:?\s*(\d{3,})\b',
        re.IGNORECASE,
    ),
)
_NUMBER = re.compile(r'(?<![\w.#-])-?\d+(?:\.\d+)?(?![\w-])')
_NAME = re.compile(r'\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b')
_SINGLE_NAME = re.compile(r'(?<=[a-z,] )([A-Z][a-z]{2,})\b')
_NEGATIONS = frozenset(
    {'no', 'not', 'without', 'never', "don't", 'dont', 'exclude', 'false', 'off', 'disable'}
)


def word_set(text: str) -> frozenset[str]:
    """The space-separated words of ``text`` as a set (for word lists written as one string)."""
    return frozenset(text.split())


def stem(word: str) -> str:
    """A crude English stem, enough to match ``orders`` with ``order`` and ``searching`` with ``search``."""
    word = word.lower().strip("'")
    for suffix, replacement in (('ies', 'y'), ('ing', ''), ('es', ''), ('ed', ''), ('s', '')):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + replacement
    return word


def split_identifier(name: str) -> list[str]:
    """Split ``lookup_order`` or ``searchKnowledgeBase`` into lowercase words."""
    spaced = re.sub(r'(?<=[a-z0-9])(?=[A-Z])', ' ', name)
    return [part.lower() for part in re.split(r'[\s_.\-:/]+', spaced) if part]


def keywords_of(text: str) -> list[str]:
    """The meaningful words of ``text``, lowercase, in order, without duplicates or stopwords."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text):
        word = match.group().lower().strip("'-_")
        if len(word) >= 2 and word not in STOPWORDS and not word.isdigit():
            seen.setdefault(word, None)
    return list(seen)


def stems_of(text: str) -> set[str]:
    """The stems of the meaningful words of ``text`` (identifiers are split first)."""
    words: list[str] = []
    for token in _WORD.findall(text):
        words.extend(split_identifier(token))
    return {stem(word) for word in words if len(word) >= 2 and word not in STOPWORDS and not word.isdigit()}


@dataclass(frozen=True)
class PromptFacts:
    """What the demo model can read off one prompt."""

    text: str
    quoted: list[str] = field(default_factory=list[str])
    emails: list[str] = field(default_factory=list[str])
    urls: list[str] = field(default_factory=list[str])
    dates: list[str] = field(default_factory=list[str])
    phones: list[str] = field(default_factory=list[str])
    ids: list[str] = field(default_factory=list[str])
    numbers: list[str] = field(default_factory=list[str])
    names: list[str] = field(default_factory=list[str])

    @classmethod
    def read(cls, text: str) -> PromptFacts:
        """Extract the facts of ``text``."""
        quoted = [next(group for group in match.groups() if group) for match in _QUOTED.finditer(text)]
        emails = _EMAIL.findall(text)
        urls = _URL.findall(text)
        # Blank out what is already recognised so its digits are not read again as numbers or ids.
        rest = _URL.sub(' ', _EMAIL.sub(' ', text))
        dates = _DATE.findall(rest)
        rest = _DATE.sub(' ', rest)
        phones = [phone.strip() for phone in _PHONE.findall(rest) if sum(ch.isdigit() for ch in phone) >= 8]
        for phone in phones:
            rest = rest.replace(phone, ' ')
        ids: list[str] = []
        for pattern in _ID_PATTERNS:
            for match in pattern.finditer(rest):
                value = match.group(1)
                if any(ch.isdigit() for ch in value) and value not in ids:
                    ids.append(value)
        for value in ids:
            rest = re.sub(rf'#?{re.escape(value)}', ' ', rest)
        numbers = _NUMBER.findall(rest)
        names = [name for name in _NAME.findall(text) if not set(name.lower().split()) & STOPWORDS]
        names += [
            name
            for name in _SINGLE_NAME.findall(text)
            if name.lower() not in STOPWORDS and not any(name in full.split() for full in names)
        ]
        return cls(
            text=text,
            quoted=quoted,
            emails=emails,
            urls=urls,
            dates=dates,
            phones=phones,
            ids=ids,
            numbers=numbers,
            names=list(dict.fromkeys(names)),
        )

    @cached_property
    def lower(self) -> str:
        """The prompt in lowercase with hyphens and underscores read as spaces."""
        return ' '.join(re.sub(r'[-_]', ' ', self.text.lower()).split())

    @cached_property
    def keywords(self) -> list[str]:
        """The meaningful words of the prompt."""
        return keywords_of(self.text)

    @cached_property
    def stems(self) -> set[str]:
        """The stems of the prompt's meaningful words."""
        return stems_of(self.text)

    def mentions(self, phrase: str) -> bool:
        """Whether the prompt contains ``phrase`` as whole words (case, hyphens and underscores ignored)."""
        needle = ' '.join(re.sub(r'[-_]', ' ', phrase.lower()).split())
        return re.search(rf'(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])', self.lower) is not None

    def negated(self, word: str) -> bool:
        """Whether ``word`` appears right after a negation (``without attachments``, ``not urgent``)."""
        tokens = self.lower.split()
        target = stem(word)
        return any(
            stem(token) == target and tokens[i - 1] in _NEGATIONS for i, token in enumerate(tokens) if i
        )

    def phrase(self, *, exclude: set[str] | frozenset[str] | None = None, max_words: int = 6) -> str:
        """The best short phrase for a free-text argument: a quoted phrase, else the prompt's key words."""
        if self.quoted:
            return self.quoted[0]
        return ' '.join((self.terms(exclude) or self.keywords)[:max_words])

    def terms(self, exclude: set[str] | frozenset[str] | None = None) -> list[str]:
        """The prompt's key words without ``exclude`` (compared by stem), ids and emails."""
        excluded = {stem(word) for word in exclude or ()} | {stem(value) for value in self.ids + self.emails}
        return [word for word in self.keywords if stem(word) not in excluded]

    @cached_property
    def sentences(self) -> list[str]:
        """The prompt's sentences, each shortened to 200 characters."""
        return [shorten(s, 200) for s in re.split(r'(?<=[.!?])\s+|\n+', self.text.strip()) if s.strip()]

    def first_sentence(self, max_chars: int = 160) -> str:
        """The prompt's first sentence, shortened to ``max_chars``."""
        return shorten(self.sentences[0], max_chars) if self.sentences else ''


def shorten(text: str, max_chars: int) -> str:
    """``text`` on one line, cut at a word boundary with an ellipsis when longer than ``max_chars``."""
    flat = ' '.join(text.split())
    if len(flat) <= max_chars:
        return flat
    cut = flat[: max_chars - 1].rsplit(' ', 1)[0]
    return f'{cut}…'
