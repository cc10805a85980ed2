"""The recognizers the privacy detector runs: Presidio's own where they hold, ours where they are weak.

Presidio and spaCy take about 1.5 s to import, so they are imported inside `recognizers()` (and the
classes below are defined, once, by `_classes()`), which the detector calls when it is built (the
first turn with privacy on), not when this module is imported.

- Presidio's predefined recognizers: IBAN, IP, Spain's NIF and NIE, Italy's codice fiscale, the
  UK's NINO, the US SSN, Germany's Steuer-ID and Personalausweis, and spaCy's person names and
  places. The country ones are made for the one language every text is analysed in (`en`).
- `OfflineEmailRecognizer`: Presidio's e-mail pattern, its domain checked against the public-suffix
  list bundled with `tldextract` (`TLDExtract(suffix_list_urls=(), cache_dir=None)`), never the copy
  `tldextract` fetches on first use, and nothing written to its cache folder.
- `PhoneNumbers`: `phonenumbers` across `PHONE_REGIONS`, at its `POSSIBLE` leniency (Faker's and
  many real numbers fail the stricter `VALID` metadata check), but only as a whole token of at
  least `MIN_PHONE_DIGITS` digits: a run of digits inside an IBAN or an e-mail, or an IPv4 address,
  is not a phone.
- `Cards`: Presidio's card pattern misses 12- and 19-digit cards; this one takes 12 to 19 digits in
  groups (and the 15-digit JCB numbers that start 1800 or 2131, and Maestro's 0604), Luhn-checked.
- `FrNirRecognizer`: France's NIR (numéro de sécurité sociale, 13 digits and a 2-digit key), with
  its key checked (Presidio has none).
"""

from __future__ import annotations

import functools
import re
from typing import Any

PHONE_REGIONS: tuple[str, ...] = ('US', 'GB', 'ES', 'FR', 'DE', 'IT')
"""The regions whose national formats phone numbers are looked for in (international `+` numbers of
any region are found whatever the list)."""

MIN_PHONE_DIGITS = 7
_DOTTED_QUAD = re.compile(r'\d{1,3}(?:\.\d{1,3}){3}')
PHONE_SCORE = 0.4
"""Below a national id's pattern score: `876-39-6901` is a US SSN before it is a phone."""


def _whole_token(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` touches no letter, digit, `@`, `.`-digit or `-`-digit on either side."""
    before = text[start - 1] if start > 0 else ' '
    after = text[end] if end < len(text) else ' '
    if before.isalnum() or after.isalnum() or before in '@_/' or after in '@_/':
        return False
    if before in '.-' and start > 1 and text[start - 2].isalnum():
        return False
    return not (after in '.-' and end + 1 < len(text) and text[end + 1].isalnum())


@functools.cache
def _classes() -> dict[str, type[Any]]:
    """Our recognizer classes, defined on Presidio's once it is imported."""
    import phonenumbers
    import tldextract
    from presidio_analyzer import (
        AnalysisExplanation,
        EntityRecognizer,
        LocalRecognizer,
        Pattern,
        PatternRecognizer,
        RecognizerResult,
    )
    from presidio_analyzer.predefined_recognizers import CreditCardRecognizer, EmailRecognizer

    offline_tld = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
    """`tldextract` with the public-suffix snapshot it ships: no fetch, no cache written."""

    class OfflineEmailRecognizer(EmailRecognizer):
        """Presidio's e-mail recognizer, its domain checked with the bundled suffix list."""

        def validate_result(self, pattern_text: str) -> bool:
            return offline_tld(pattern_text).fqdn != ''

    class PhoneNumbers(LocalRecognizer):
        """Phone numbers of `PHONE_REGIONS` (see the module docstring)."""

        def __init__(self) -> None:
            super().__init__(
                supported_entities=['PHONE_NUMBER'],
                supported_language='en',
                context=['phone', 'tel', 'mobile', 'call', 'teléfono', 'téléphone', 'telefon', 'telefono'],
                name='PhoneNumbers',
            )

        def load(self) -> None:
            """Nothing to load: `phonenumbers` ships its metadata."""

        def analyze(
            self, text: str, entities: list[str], nlp_artifacts: Any = None
        ) -> list[RecognizerResult]:
            """Every phone number of the regions, as a whole token."""
            results: list[RecognizerResult] = []
            seen: set[tuple[int, int]] = set()
            leniency = phonenumbers.Leniency.POSSIBLE
            for region in PHONE_REGIONS:
                for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=leniency):
                    span = (match.start, match.end)
                    if span in seen or not _whole_token(text, *span):
                        continue
                    if sum(ch.isdigit() for ch in match.raw_string) < MIN_PHONE_DIGITS:
                        continue
                    if _DOTTED_QUAD.fullmatch(match.raw_string):
                        continue  # an IPv4 address
                    seen.add(span)
                    results.append(
                        RecognizerResult(
                            entity_type='PHONE_NUMBER',
                            start=match.start,
                            end=match.end,
                            score=PHONE_SCORE,
                            analysis_explanation=AnalysisExplanation(
                                recognizer='PhoneNumbers',
                                original_score=PHONE_SCORE,
                                textual_explanation=f'a phone number ({region} formats)',
                            ),
                            recognition_metadata={
                                RecognizerResult.RECOGNIZER_NAME_KEY: 'PhoneNumbers',
                                RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                            },
                        )
                    )
            return list(EntityRecognizer.remove_duplicates(results))

    class Cards(CreditCardRecognizer):
        """Payment cards of 12 to 19 digits (in groups of 4, or unbroken), Luhn-checked."""

        PATTERNS = [
            Pattern('card (12-19 digits)', r'\b[2-6]\d{3}(?:[ -]?\d{4}){2,3}(?:[ -]?\d{1,3})?\b', 0.3),
            Pattern('card (unbroken)', r'\b[2-6]\d{11,18}\b', 0.3),
            Pattern('card (JCB 1800/2131, Maestro 0604)', r'\b(?:1800|2131)\d{11}\b|\b0604\d{8,15}\b', 0.3),
        ]

        def __init__(self) -> None:
            super().__init__(patterns=self.PATTERNS, name='Cards')

    class FrNirRecognizer(PatternRecognizer):
        """France's NIR: sex, year, month, département (2A/2B for Corsica), commune, order, key."""

        PATTERNS = [
            Pattern(
                'NIR',
                r'\b[12378] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AaBb]) ?\d{3} ?\d{3} ?\d{2}\b',
                0.5,
            )
        ]
        CONTEXT = ['sécurité sociale', 'securite sociale', 'nir', 'insee', 'numéro de sécu', 'ssn']

        def __init__(self) -> None:
            super().__init__(
                supported_entity='FR_NIR',
                patterns=self.PATTERNS,
                context=self.CONTEXT,
                supported_language='en',
                name='FrNirRecognizer',
            )

        def validate_result(self, pattern_text: str) -> bool:
            """The key is 97 minus the 13-digit number modulo 97 (2A counts as 19, 2B as 18)."""
            digits = re.sub(r'\s', '', pattern_text).upper()
            body, key = digits[:13], digits[13:]
            body = body[:5] + body[5:7].replace('2A', '19').replace('2B', '18') + body[7:]
            if not body.isdigit() or not key.isdigit():
                return False
            return 97 - int(body) % 97 == int(key)

    return {
        'email': OfflineEmailRecognizer,
        'phone': PhoneNumbers,
        'cards': Cards,
        'fr_nir': FrNirRecognizer,
    }


def recognizers() -> list[Any]:
    """A fresh set of the recognizers the detector runs (imports Presidio)."""
    from presidio_analyzer.predefined_recognizers import (
        DeIdCardRecognizer,
        DeTaxIdRecognizer,
        EsNieRecognizer,
        EsNifRecognizer,
        IbanRecognizer,
        IpRecognizer,
        ItFiscalCodeRecognizer,
        SpacyRecognizer,
        UkNinoRecognizer,
        UsSsnRecognizer,
    )

    ours = _classes()
    return [
        ours['email'](),
        ours['phone'](),
        IbanRecognizer(),
        ours['cards'](),
        IpRecognizer(),
        EsNifRecognizer(supported_language='en'),
        EsNieRecognizer(supported_language='en'),
        ours['fr_nir'](),
        DeTaxIdRecognizer(supported_language='en'),
        DeIdCardRecognizer(supported_language='en'),
        ItFiscalCodeRecognizer(supported_language='en'),
        UkNinoRecognizer(),
        UsSsnRecognizer(),
        SpacyRecognizer(supported_entities=['PERSON', 'LOCATION']),
    ]
