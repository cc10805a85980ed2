"""PII redaction, measured: what the detector keeps from the model, what it needlessly replaces, the
round trip, a scripted conversation's outbound requests, and the time a turn adds.

On the labelled set of `privacy_set.py` (Faker, six locales; every value with its span):

- kept from the model, per entity: the share of values whose every character is inside something
  the detector found (a value half-replaced counts as sent). Structured identifiers are measured as
  `privacy_enabled` runs by default (names kept in clear); names with `privacy_except = []`;
- precision, per entity: the share of the detector's findings that fall on a labelled value of any
  kind, and on the clean sentences (dates, amounts, versions: no personal data) the share of
  characters needlessly replaced;
- round trip: `restore(redact(x)) == x` for every sample;
- a scripted conversation (four turns through `Synapse` with `privacy_enabled`, a tool that looks the
  customer up, a `FunctionModel` that records every request): the labelled values found in any request;
- added time per turn: the same conversation's turns with privacy off and on, interleaved (p50, p95).

    python bench/bench_privacy.py                 # 100 sentences per locale
    python bench/bench_privacy.py --per-locale 300 --turns 40 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from privacy_set import LOCALES, Sample, clean_sentences, samples
from results import Result, percentile, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'src'))

from presidio_analyzer.predefined_recognizers import PhoneRecognizer
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from synapse_agents import Synapse
from synapse_agents.privacy.detector import Detector, Finding, detector
from synapse_agents.privacy.vault import Vault
from synapse_agents.settings import load_settings

STRUCTURED_TARGET = 0.97


def covered(found: list[Finding], start: int, end: int) -> bool:
    """Whether every character of `[start, end)` is inside a finding."""
    at = start
    for finding in sorted(found, key=lambda f: f.start):
        if finding.start <= at < finding.end:
            at = finding.end
        if at >= end:
            return True
    return at >= end


def measure_detection(found_detector: Detector, labelled: list[Sample], clean: list[str]) -> dict[str, Any]:
    kept: dict[str, list[bool]] = defaultdict(list)
    hits: dict[str, list[bool]] = defaultdict(list)
    misses: dict[str, list[str]] = defaultdict(list)
    round_trips = 0
    for sample in labelled:
        structured = found_detector.find(sample.text, keep=['PERSON'])
        everything = found_detector.find(sample.text, keep=[])
        for label in sample.labels:
            source = everything if label.entity == 'PERSON' else structured
            ok = covered(source, label.start, label.end)
            kept[label.entity].append(ok)
            if not ok and len(misses[label.entity]) < 5:
                misses[label.entity].append(f'{sample.locale}: {label.value}')
        for finding in everything:
            on_label = any(finding.start < lb.end and lb.start < finding.end for lb in sample.labels)
            hits[finding.entity].append(on_label)
        vault = Vault()
        redacted, _ = vault.redact(sample.text, everything)
        round_trips += vault.restore(redacted) == sample.text
    replaced = total = 0
    for sentence in clean:
        total += len(sentence)
        for finding in found_detector.find(sentence, keep=[]):
            replaced += finding.end - finding.start
            hits[finding.entity].append(False)
    return {
        'kept': {entity: sum(v) / len(v) for entity, v in kept.items()},
        'counts': {entity: len(v) for entity, v in kept.items()},
        'precision': {entity: sum(v) / len(v) for entity, v in hits.items()},
        'findings': {entity: len(v) for entity, v in hits.items()},
        'misses': dict(misses),
        'round_trip': round_trips / len(labelled),
        'clean_replaced': replaced / total if total else 0.0,
    }


def stock_phones(labelled: list[Sample]) -> float:
    """The share of the set's phones Presidio's own `PhoneRecognizer` (its default regions and
    leniency) covers: what the `phonenumbers` recognizer here is compared with."""
    stock = PhoneRecognizer()
    hits: list[bool] = []
    for sample in labelled:
        results = stock.analyze(sample.text, ['PHONE_NUMBER'])
        found = [Finding(r.start, r.end, r.entity_type, r.score) for r in results]
        hits += [covered(found, lb.start, lb.end) for lb in sample.labels if lb.entity == 'PHONE_NUMBER']
    return sum(hits) / len(hits)


class Scripted:
    """The model of the scripted conversation: looks the customer up, then answers with what it got."""

    def __init__(self) -> None:
        self.requests: list[list[ModelMessage]] = []

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        self.requests.append(list(messages))
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        returned = [p for p in last.parts if isinstance(p, ToolReturnPart)]
        if returned:
            yield f'Here is what I found: {returned[0].content}'
            return
        prompt = str(last.parts[-1].content)  # type: ignore[union-attr]
        yield {
            0: DeltaToolCall(name='lookup', json_args=json.dumps({'query': prompt[:80]}), tool_call_id='c')
        }

    def agent(self, profiles: dict[str, str]) -> Agent[Any, str]:
        agent: Agent[Any, str] = Agent(FunctionModel(stream_function=self.stream), name='desk')

        @agent.tool_plain
        def lookup(query: str) -> str:
            return profiles.get('next', 'nothing found')

        return agent


async def conversation(
    labelled: list[Sample], home: Path, turns: int, privacy: bool
) -> tuple[list[float], Scripted, list[str]]:
    """`turns` turns of one conversation (a new one every 4 turns); each turn's ms."""
    model = Scripted()
    profiles: dict[str, str] = {}
    overrides = {'home': home, 'agents': [], 'privacy_enabled': privacy}
    durations: list[float] = []
    used: list[str] = []
    async with Synapse(settings=load_settings(overrides)) as syn:
        conv = None
        for index in range(turns):
            if index % 4 == 0:
                conv = await syn.conversation(model.agent(profiles))
            sample = labelled[index % len(labelled)]
            other = labelled[(index + 7) % len(labelled)]
            profiles['next'] = other.text  # the tool returns another customer's record
            used += [lb.value for lb in (*sample.labels, *other.labels) if lb.entity != 'PERSON']
            assert conv is not None
            started = time.perf_counter()
            await conv.send(sample.text)
            durations.append((time.perf_counter() - started) * 1000)
    return durations, model, used


async def measure_turns(labelled: list[Sample], turns: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        off, _, _ = await conversation(labelled, Path(folder) / 'off', 4, False)  # warm-up
        on, _, _ = await conversation(labelled, Path(folder) / 'on-warm', 4, True)
        off, _, _ = await conversation(labelled, Path(folder) / 'off2', turns, False)
        on, model, used = await conversation(labelled, Path(folder) / 'on2', turns, True)
    sent = ModelMessagesTypeAdapter.dump_json([m for r in model.requests for m in r]).decode()
    leaked = sorted({value for value in used if value in sent or json.dumps(value)[1:-1] in sent})
    return {'off': off, 'on': on, 'leaked': leaked, 'values': len(set(used)), 'requests': len(model.requests)}


def report(detection: dict[str, Any], turns: dict[str, Any], console: Console) -> list[Result]:
    group = 'Privacy'
    table = Table(title='PII detection on the labelled set (kept: share of values the model never sees)')
    for column in ('entity', 'values', 'kept', 'findings', 'precision', 'target'):
        table.add_column(column, justify='left' if column == 'entity' else 'right')
    results: list[Result] = []
    for entity in sorted(detection['kept']):
        share = detection['kept'][entity]
        structured = entity != 'PERSON'
        target = f'kept >= {STRUCTURED_TARGET}' if structured else ''
        table.add_row(
            entity,
            str(detection['counts'][entity]),
            f'{share:.3f}',
            str(detection['findings'].get(entity, 0)),
            f'{detection["precision"].get(entity, 0.0):.3f}',
            target,
        )
        results.append(
            Result(
                group,
                f'{entity}: share kept from the model',
                share,
                unit='share',
                samples=detection['counts'][entity],
                target=target,
                passed=share >= STRUCTURED_TARGET if structured else None,
            )
        )
        results.append(
            Result(group, f'{entity}: precision', detection['precision'].get(entity, 0.0), unit='share')
        )
    console.print(table)
    console.print(f"Presidio's own PhoneRecognizer on the same phones: {detection['stock_phones']:.3f} kept.")
    for entity, misses in detection['misses'].items():
        console.print(f'  missed {entity}: {"; ".join(misses)}')
    off, on = turns['off'], turns['on']
    added50 = statistics.median(on) - statistics.median(off)
    added95 = percentile(on, 0.95) - percentile(off, 0.95)
    console.print(
        f'Round trip restore(redact(x)) == x: {detection["round_trip"]:.3f}; ordinary text replaced: '
        f'{detection["clean_replaced"]:.4f} of its characters.\n'
        f'Scripted conversation: {turns["requests"]} requests, {turns["values"]} labelled values, '
        f'{len(turns["leaked"])} found in a request {turns["leaked"][:5]}.\n'
        f'Turn: off p50 {statistics.median(off):.1f} ms, on p50 {statistics.median(on):.1f} ms; '
        f'added p50 {added50:+.1f} ms, p95 {added95:+.1f} ms.'
    )
    results += [
        Result(
            group,
            'round trip',
            detection['round_trip'],
            unit='share',
            target='= 1',
            passed=detection['round_trip'] == 1,
        ),
        Result(group, 'ordinary text replaced', detection['clean_replaced'], unit='share'),
        Result(
            group, "phones kept by Presidio's own PhoneRecognizer", detection['stock_phones'], unit='share'
        ),
        Result(
            group,
            'labelled values in outbound requests',
            len(turns['leaked']),
            unit='values',
            samples=turns['values'],
            target='= 0',
            passed=not turns['leaked'],
        ),
        Result(group, 'added per turn', added50, added95, samples=len(on)),
    ]
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument('--per-locale', type=int, default=100)
    parser.add_argument('--turns', type=int, default=24)
    parser.add_argument('--json', default=None)
    args = parser.parse_args()
    console = Console()
    started = time.perf_counter()
    found_detector = detector()
    console.print(
        f'Detector built in {(time.perf_counter() - started) * 1000:.0f} ms ({", ".join(LOCALES)}).'
    )
    labelled = samples(args.per_locale)
    detection = measure_detection(found_detector, labelled, clean_sentences(args.per_locale))
    detection['stock_phones'] = stock_phones(labelled)
    turns = await measure_turns(labelled, args.turns)
    write_json(args.json, report(detection, turns, console))


if __name__ == '__main__':
    asyncio.run(main())
