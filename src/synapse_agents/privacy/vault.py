"""A conversation's vault: which placeholder stands for which value, and putting the values back.

A value found in a text is replaced by a placeholder such as `«EMAIL_1»`: the entity's word and a
number counted per word, between French quotation marks. The form was chosen for models to keep:
the guillemets are single characters that ordinary prose, code, Markdown and HTML give no meaning
to (square or angle brackets would be read as links, tags or templates), so a model copies them as
they are; the word tells the model what was there (it can still say "I'll call «PHONE_1»"), and
the number tells two values of a kind apart.

The same value gets the same placeholder for the whole conversation: the vault is loaded at the
first request of each run and stored (encrypted) whenever it grows, so turn 5 still calls the
address of turn 1 `«EMAIL_1»`. A value is matched exactly (the same characters).

`restore` puts the values back in a text; `StreamRestorer` does it for text that arrives in pieces
(a streamed reply), holding back the end of a piece that may be the start of a placeholder until the
next piece says whether it is one.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from .detector import ENTITIES, Finding

OPEN, CLOSE = '«', '»'
PLACEHOLDER = re.compile(r'«([A-Z][A-Z_]*?)_(\d{1,6})»')
"""A placeholder: the entity's word, `_`, its number."""
_PARTIAL = re.compile(r'[A-Z_\d]*')
"""What may follow a `«` in a placeholder not complete yet."""
LONGEST = 32
"""More characters than any placeholder has: a held-back `«` followed by this many is no placeholder."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One placeholder: the value it stands for and the entity it was found as."""

    placeholder: str
    entity: str
    value: str


@dataclass(frozen=True, slots=True)
class Replaced:
    """A placeholder put in a text sent to the model (what the turn shows: never the value)."""

    placeholder: str
    entity: str


class Vault:
    """A conversation's placeholders (thread-safe: a run's parallel tool calls may add to it)."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._lock = threading.Lock()
        self._by_placeholder: dict[str, Entry] = {}
        self._by_value: dict[str, Entry] = {}
        self._counts: dict[str, int] = {}
        self._new = 0
        for entry in entries:
            self._add(entry)
        self._new = 0

    def __len__(self) -> int:
        return len(self._by_placeholder)

    @property
    def changed(self) -> bool:
        """Whether placeholders were added since it was loaded or last `saved()`."""
        return self._new > 0

    def saved(self) -> None:
        """Note that what it holds now is stored."""
        with self._lock:
            self._new = 0

    def entries(self) -> list[Entry]:
        """Every placeholder, in the order they were made."""
        with self._lock:
            return list(self._by_placeholder.values())

    def placeholder(self, value: str, entity: str) -> str:
        """The placeholder of `value`: its own when it has one, else a new one for `entity`."""
        with self._lock:
            known = self._by_value.get(value)
            if known is not None:
                return known.placeholder
            word = ENTITIES.get(entity, 'PII')
            number = self._counts.get(word, 0) + 1
            placeholder = f'{OPEN}{word}_{number}{CLOSE}'
            while placeholder in self._by_placeholder:  # a merged vault may hold it already
                number += 1
                placeholder = f'{OPEN}{word}_{number}{CLOSE}'
            self._add(Entry(placeholder, entity, value))
            return placeholder

    def value(self, placeholder: str) -> str | None:
        """The value `placeholder` stands for (None: not one of this vault's)."""
        entry = self._by_placeholder.get(placeholder)
        return entry.value if entry is not None else None

    def merge(self, entries: Iterable[Entry]) -> None:
        """Take in entries stored meanwhile (by another run of the conversation); a placeholder or
        a value it already has keeps what it had."""
        with self._lock:
            for entry in entries:
                if entry.placeholder not in self._by_placeholder and entry.value not in self._by_value:
                    self._add(entry)
                    self._new -= 1

    def _add(self, entry: Entry) -> None:
        self._by_placeholder[entry.placeholder] = entry
        self._by_value.setdefault(entry.value, entry)
        match = PLACEHOLDER.fullmatch(entry.placeholder)
        if match is not None:
            word, number = match.group(1), int(match.group(2))
            self._counts[word] = max(self._counts.get(word, 0), number)
        self._new += 1

    # -- the stored form --------------------------------------------------------------------

    def dumps(self) -> str:
        """The vault as JSON (what is encrypted and stored)."""
        return json.dumps([[e.placeholder, e.entity, e.value] for e in self.entries()], ensure_ascii=False)

    @classmethod
    def loads(cls, text: str) -> Vault:
        """The vault `dumps` wrote."""
        return cls(Entry(str(p), str(e), str(v)) for p, e, v in json.loads(text))

    # -- redact and restore -----------------------------------------------------------------

    def redact(self, text: str, findings: Iterable[Finding]) -> tuple[str, list[Replaced]]:
        """`text` with each finding replaced by its placeholder, and the placeholders put in."""
        pieces: list[str] = []
        replaced: list[Replaced] = []
        at = 0
        for finding in sorted(findings, key=lambda f: f.start):
            if finding.start < at:
                continue
            placeholder = self.placeholder(text[finding.start : finding.end], finding.entity)
            pieces += [text[at : finding.start], placeholder]
            replaced.append(Replaced(placeholder, finding.entity))
            at = finding.end
        if not replaced:
            return text, []
        pieces.append(text[at:])
        return ''.join(pieces), replaced

    def restore(self, text: str) -> str:
        """`text` with every placeholder of this vault replaced by its value (others left as they are)."""
        if OPEN not in text:
            return text
        return PLACEHOLDER.sub(lambda m: self.value(m.group(0)) or m.group(0), text)


class StreamRestorer:
    """Restores a text that arrives in pieces: `feed` each piece, `flush` at the end.

    What `feed` returns can be shown at once: it ends before any `«` that may still open a
    placeholder, which is held back until the piece that completes it (or shows it is none)."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._held = ''

    def feed(self, piece: str) -> str:
        """The restored text that is certain so far."""
        text = self._held + piece
        cut = _open_tail(text)
        self._held = text[cut:]
        return self.vault.restore(text[:cut])

    def flush(self) -> str:
        """What was held back, restored (the text has ended)."""
        held, self._held = self._held, ''
        return self.vault.restore(held)


def _open_tail(text: str) -> int:
    """Where a trailing placeholder that may not be complete starts (`len(text)`: none)."""
    start = text.rfind(OPEN)
    if start < 0 or CLOSE in text[start:] or len(text) - start > LONGEST:
        return len(text)
    if _PARTIAL.fullmatch(text[start + 1 :]) is None:
        return len(text)  # cannot become a placeholder
    return start
