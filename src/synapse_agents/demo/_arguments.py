"""Build JSON values that validate against a JSON schema, from the facts of a prompt.

Used for function tool arguments and for structured output. Strings come from quoted phrases,
ids, emails, names or the prompt's key words according to the property name; integers and numbers
from the numbers in the prompt (clamped to the schema's bounds); enums from a value the prompt
mentions; booleans from whether the property's words appear (and are not negated). Objects, arrays,
``$ref``, ``anyOf``/``oneOf``/``allOf``, ``const``, nullable types and ``additionalProperties`` are
handled; required properties are always filled.
"""

from __future__ import annotations

import math
import re
import uuid
from datetime import UTC, datetime
from typing import Any

from ._patterns import sample_for_pattern
from ._prompt import PromptFacts, split_identifier, stem, word_set

JsonSchema = dict[str, Any]
"""A JSON schema node, as pydantic emits them."""

_MAX_DEPTH = 12
_OPTIONAL_DEPTH = 3
"""Below this depth optional properties and extra array items are left out, so recursive models end."""


_LONG_TEXT = word_set('text content body document message details notes prompt input context')
_SENTENCE = word_set('summary description reason explanation overview action task step')
_SHORT_TEXT = word_set('query q question search keyword keywords topic subject title term')
_ID_WORDS = word_set('id ids sku ref reference code number')
_PERSON_WORDS = word_set('name customer person author owner assignee contact requester')
_SYNONYMS: dict[str, frozenset[str]] = {
    'high': word_set('urgent asap critical emergency immediately important high'),
    'urgent': word_set('urgent asap emergency immediately'),
    'critical': word_set('critical outage down emergency'),
    'low': word_set('minor whenever low trivial'),
    'billing': word_set('bill billing charge charged invoice refund payment price paid pay'),
    'technical': word_set('error bug crash broken login password technical app website'),
    'shipping': word_set('ship shipping delivery deliver package parcel arrive late tracking'),
    'negative': word_set('angry upset terrible awful bad disappointed frustrated worst'),
    'positive': word_set('great love thanks happy excellent good awesome'),
}
_NO_WORDS: frozenset[str] = frozenset()
_INTEGER_HINTS = {'limit': 3, 'top': 3, 'max': 5, 'count': 3, 'quantity': 1, 'qty': 1, 'page': 1, 'days': 7}


class ArgumentBuilder:
    """Builds values for one root schema (a tool's parameters or an output schema) from prompt facts."""

    def __init__(
        self, facts: PromptFacts, root: JsonSchema, *, fill_optional: bool, exclude: set[str] | None = None
    ) -> None:
        """Set up a builder.

        ``fill_optional`` fills every property (structured output); otherwise optional properties are filled
        only when the prompt says something specific for them. ``exclude`` lists words (such as the tool's
        own name) to leave out of free-text values.
        """
        self.facts = facts
        self.root = root
        self.fill_optional = fill_optional
        self.exclude = exclude or set()
        self._numbers_used = 0

    def build(self) -> dict[str, Any]:
        """A value for the root schema, which must describe an object."""
        value = self.value(self.root, '', 0, 0)
        return value if isinstance(value, dict) else {}

    def value(self, schema: JsonSchema | bool, name: str, depth: int, index: int) -> Any:
        """A value for ``schema``, at property ``name`` (``index`` picks among several candidates)."""
        if not isinstance(schema, dict):
            return self._string({}, name, index)
        schema = self._resolve(schema)
        if 'const' in schema:
            return schema['const']
        if enum := schema.get('enum'):
            return self._enum(enum, schema, name, index)
        if choices := schema.get('anyOf') or schema.get('oneOf'):
            return self._union(choices, schema, name, depth, index)
        kind = schema.get('type')
        if isinstance(kind, list):
            non_null = [k for k in kind if k != 'null']
            if not non_null or (
                'null' in kind and not self.has_evidence(name, {**schema, 'type': non_null[0]})
            ):
                return None
            kind = non_null[0]
        if kind is None:
            kind = 'object' if 'properties' in schema else 'string'
        if depth > _MAX_DEPTH and kind in ('object', 'array'):
            return {} if kind == 'object' else []
        match kind:
            case 'object':
                return self._object(schema, depth, index)
            case 'array':
                return self._array(schema, name, depth)
            case 'integer':
                return int(self._number(schema, name, integer=True))
            case 'number':
                return self._number(schema, name, integer=False)
            case 'boolean':
                return self._boolean(schema, name)
            case 'null':
                return None
            case _:
                return self._string(schema, name, index)

    def has_evidence(self, name: str, schema: JsonSchema) -> bool:
        """Whether the prompt says something specific for the property ``name`` of type ``schema``."""
        schema = self._resolve(schema)
        if choices := schema.get('anyOf') or schema.get('oneOf'):
            return any(
                self.has_evidence(name, c) for c in choices if isinstance(c, dict) and c.get('type') != 'null'
            )
        words = set(split_identifier(name))
        kind = schema.get('type')
        if enum := schema.get('enum'):
            return bool(self._mentioned_enum(enum))
        if kind in ('integer', 'number'):
            return len(self.facts.numbers) > self._numbers_used
        if words & {'email', 'mail'}:
            return bool(self.facts.emails)
        if words & {'url', 'link', 'website'}:
            return bool(self.facts.urls)
        if words & {'phone', 'mobile'}:
            return bool(self.facts.phones)
        if words & _ID_WORDS:
            return bool(self.facts.ids)
        if words & _PERSON_WORDS:
            return bool(self.facts.names)
        if words & {'date', 'day', 'deadline'}:
            return bool(self.facts.dates)
        return any(stem(word) in self.facts.stems for word in words if len(word) > 2)

    def _resolve(self, schema: JsonSchema) -> JsonSchema:
        seen = 0
        while (ref := schema.get('$ref')) and seen < _MAX_DEPTH:
            target = self.root
            for key in str(ref).removeprefix('#/').split('/'):
                target = target.get(key, {}) if isinstance(target, dict) else {}
            schema = {**target, **{k: v for k, v in schema.items() if k != '$ref'}}
            seen += 1
        if all_of := schema.get('allOf'):
            merged: JsonSchema = {k: v for k, v in schema.items() if k != 'allOf'}
            for part in all_of:
                if isinstance(part, dict):
                    resolved = self._resolve(part)
                    merged = {**resolved, **merged, 'properties': {**resolved.get('properties', {})}}
                    merged['required'] = [*resolved.get('required', []), *schema.get('required', [])]
            return merged
        return schema

    def _object(self, schema: JsonSchema, depth: int, index: int) -> dict[str, Any]:
        required = set(schema.get('required', []))
        result: dict[str, Any] = {}
        optional = depth < _OPTIONAL_DEPTH
        for key, sub in (schema.get('properties') or {}).items():
            sub_schema = sub if isinstance(sub, dict) else {}
            if key in required or (optional and (self.fill_optional or self.has_evidence(key, sub_schema))):
                result[key] = self.value(sub_schema, key, depth + 1, index)
        extra = schema.get('additionalProperties')
        if isinstance(extra, dict) and not schema.get('properties') and extra:
            key = self.facts.keywords[index] if index < len(self.facts.keywords) else 'demo'
            result[key] = self.value(extra, key, depth + 1, index)
        return result

    def _array(self, schema: JsonSchema, name: str, depth: int) -> list[Any]:
        items = schema.get('items', {})
        if prefix := schema.get('prefixItems'):
            return [self.value(item, name, depth + 1, i) for i, item in enumerate(prefix)]
        item_schema = self._resolve(items) if isinstance(items, dict) else {}
        count = self._candidate_count(item_schema, name) if depth < _OPTIONAL_DEPTH else 0
        min_items = int(schema.get('minItems', 0))
        count = max(count, min_items)
        if (max_items := schema.get('maxItems')) is not None:
            count = min(count, int(max_items))
        values: list[Any] = []
        for i in range(count):
            item = self.value(item_schema, name, depth + 1, i)
            # Repeats only when `minItems` needs them (and `uniqueItems` allows them).
            if item not in values or (len(values) < min_items and not schema.get('uniqueItems')):
                values.append(item)
        while values and len(values) < min_items:  # distinct items were asked for: vary the first
            extra = _variant(values[0], len(values))
            if extra is None or extra in values:
                break
            values.append(extra)
        return values

    def _candidate_count(self, item_schema: JsonSchema, name: str) -> int:
        """How many items an array should get: one per matching fact (``order_ids`` → every id)."""
        facts, words = self.facts, set(split_identifier(name))
        if enum := item_schema.get('enum'):
            return max(1, len(self._mentioned_enum(enum)))
        if item_schema.get('type') not in ('string', None):
            return 1
        hints: list[tuple[frozenset[str], list[str]]] = [
            (_ID_WORDS, facts.ids),
            (word_set('email emails'), facts.emails),
            (word_set('url urls link links'), facts.urls),
            (_PERSON_WORDS | word_set('names people'), facts.names),
        ]
        for hint, found in hints:
            if words & hint:
                return len(found)
        if words & _SENTENCE:
            return len(facts.sentences)
        if facts.quoted:
            return len(facts.quoted)
        return max(1, min(3, len(facts.terms(self.exclude))))

    def _union(self, choices: list[Any], schema: JsonSchema, name: str, depth: int, index: int) -> Any:
        branches = [self._resolve(c) for c in choices if isinstance(c, dict)]
        discriminator = schema.get('discriminator')
        if isinstance(discriminator, dict) and (tag := discriminator.get('propertyName')):
            # pydantic leaves a defaulted tag out of `required`, but validation needs it to pick the branch.
            branches = [{**b, 'required': [*b.get('required', []), tag]} for b in branches]
        non_null = [b for b in branches if b.get('type') != 'null']
        if not non_null:
            return None
        named = [b for b in non_null if self._names_branch(b)]
        evidenced = named or [b for b in non_null if self.has_evidence(name, b)]
        structured = non_null[0].get('type') in ('object', 'array')
        if len(non_null) < len(branches) and not evidenced and not (self.fill_optional and structured):
            return None
        return self.value((evidenced or non_null)[0], name, depth, index)

    def _names_branch(self, branch: JsonSchema) -> bool:
        """Whether the prompt names a union branch: its title, or the value of one of its constant tags."""
        tags = [p.get('const') for p in (branch.get('properties') or {}).values() if isinstance(p, dict)]
        names = [branch.get('title'), *tags]
        return any(isinstance(n, str) and len(n) > 1 and self.facts.mentions(n) for n in names)

    def _mentioned_enum(self, enum: list[Any]) -> list[Any]:
        """The enum values the prompt names, then those it hints at through synonyms (``ASAP`` → ``high``)."""
        words = set(self.facts.lower.split())
        direct = [value for value in enum if isinstance(value, str) and self.facts.mentions(value)]
        related: list[Any] = []
        for value in enum:
            synonyms = _SYNONYMS.get(str(value).lower(), _NO_WORDS)
            if value not in direct and (synonyms & words or {stem(s) for s in synonyms} & self.facts.stems):
                related.append(value)
        return direct + related

    def _enum(self, enum: list[Any], schema: JsonSchema, name: str, index: int) -> Any:
        mentioned = self._mentioned_enum(enum)
        if index < len(mentioned):
            return mentioned[index]
        if 0 < index < len(enum):
            return enum[index]
        if 'default' in schema and schema['default'] in enum:
            return schema['default']
        neutral = [value for value in enum if value in ('other', 'normal', 'medium', 'neutral', 'unknown')]
        return neutral[0] if neutral else enum[0]

    def _number(self, schema: JsonSchema, name: str, *, integer: bool) -> float:
        value: float
        if self._numbers_used < len(self.facts.numbers):
            value = float(self.facts.numbers[self._numbers_used])
            self._numbers_used += 1
        elif isinstance(schema.get('default'), int | float):
            value = float(schema['default'])
        else:
            words = split_identifier(name)
            value = next((float(_INTEGER_HINTS[w]) for w in words if w in _INTEGER_HINTS), 1.0)
            if 'year' in words:
                value = float(datetime.now(UTC).year)
            if set(words) & {'score', 'confidence', 'probability', 'ratio'} and not integer:
                value = 0.8
        if integer:
            value = float(round(value))
        low = _bound(schema, 'minimum', 'exclusiveMinimum', integer, +1)
        high = _bound(schema, 'maximum', 'exclusiveMaximum', integer, -1)
        if low is not None and value < low:
            value = float(math.ceil(low)) if integer else low
        if high is not None and value > high:
            value = float(math.floor(high)) if integer else high
        if (step := schema.get('multipleOf')) and isinstance(step, int | float) and step > 0:
            value = math.ceil(value / step) * step
            if high is not None and value > high:
                value = math.floor(high / step) * step
        return value

    def _boolean(self, schema: JsonSchema, name: str) -> bool:
        words = [
            w for w in split_identifier(name) if len(w) > 2 and w not in {'is', 'has', 'include', 'should'}
        ]
        if any(self.facts.negated(w) for w in words):
            return False
        if words and all(stem(w) in self.facts.stems for w in words):
            return True
        return bool(schema.get('default', False))

    def _string(self, schema: JsonSchema, name: str, index: int) -> str:
        value = self._string_candidate(schema, name, index)
        min_length = int(schema.get('minLength', 0))
        if len(value) < min_length:
            value = (value + ' (demo)' * min_length)[:min_length] if value else 'x' * min_length
        if (max_length := schema.get('maxLength')) is not None:
            value = value[: int(max_length)]
        pattern = schema.get('pattern')
        if isinstance(pattern, str) and not _matches(pattern, value):
            candidates = [*self.facts.ids, *self.facts.quoted, *self.facts.numbers, *self.facts.keywords]
            candidates += [e for e in schema.get('examples') or [] if isinstance(e, str)]
            for candidate in candidates:
                if _matches(pattern, candidate):
                    return candidate
            return sample_for_pattern(pattern) or value
        return value

    def _string_candidate(self, schema: JsonSchema, name: str, index: int) -> str:
        facts = self.facts
        words = set(split_identifier(name))
        fmt = schema.get('format')
        if fmt == 'email' or words & {'email', 'mail'}:
            return _pick(facts.emails, index) or 'alex@example.com'
        if fmt in ('uri', 'url') or words & {'url', 'link', 'website'}:
            return _pick(facts.urls, index) or 'https://example.com/demo'
        if fmt == 'date-time':
            return datetime.now(UTC).replace(microsecond=0).isoformat()
        if fmt == 'date' or words & {'date', 'deadline'}:
            return _pick(facts.dates, index) or datetime.now(UTC).date().isoformat()
        if fmt == 'time':
            return '09:00:00'
        if fmt == 'duration':
            return 'PT30M'
        if fmt == 'uuid':
            return str(uuid.uuid5(uuid.NAMESPACE_URL, f'{facts.text}#{index}'))
        if words & {'phone', 'mobile'}:
            return _pick(facts.phones, index) or '+1 555 0100'
        if words & _ID_WORDS:
            prefix = next((w for w in split_identifier(name) if w not in _ID_WORDS), 'demo').upper()
            return _pick(facts.ids, index) or f'{prefix}-{1001 + index}'
        if words & _PERSON_WORDS:
            return _pick(facts.names, index) or _pick(facts.quoted, index) or 'Alex Example'
        if (examples := schema.get('examples')) and isinstance(examples[0], str) and not facts.keywords:
            return str(examples[0])
        if words & _SENTENCE:
            return _pick(facts.sentences, index) or facts.phrase() or f'demo {name}'
        if words & _LONG_TEXT:
            return _pick(facts.quoted, index) or facts.text.strip()[:2000] or 'demo text'
        if index and (quoted := _pick(facts.quoted, index)):
            return quoted
        if index and index < len(terms := facts.terms(self.exclude)):
            return terms[index]
        if words & _SHORT_TEXT or not words:
            return facts.phrase(exclude=self.exclude) or name or 'demo'
        return facts.phrase(exclude=self.exclude, max_words=8) or f'demo {name}'


def _matches(pattern: str, value: str) -> bool:
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return True  # a pattern Python can't read: leave the value as it is


def _variant(value: Any, offset: int) -> Any:
    """Another value like ``value``: ``'tag'`` → ``'tag 2'``, ``5`` → ``6`` (``None`` when there is none)."""
    if isinstance(value, str):
        return f'{value} {offset + 1}'
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value + offset
    return None


def _pick(values: list[str], index: int) -> str:
    return values[index] if index < len(values) else (values[0] if values else '')


def _bound(schema: JsonSchema, inclusive: str, exclusive: str, integer: bool, direction: int) -> float | None:
    if isinstance(value := schema.get(inclusive), int | float):
        return float(value)
    if isinstance(value := schema.get(exclusive), int | float):
        return float(value) + direction * (1 if integer else 1e-6)
    return None
