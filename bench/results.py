"""The shape every benchmark reports in, so `bench/run_all.py` can put them in one table.

Each script prints its own detailed table and, given `--json PATH`, also writes a list of
`Result`s there: one row per measured figure, with the target it is held to (if any).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path


def percentile(values: list[float], fraction: float) -> float:
    """The `fraction` quantile of `values` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


@dataclass
class Result:
    """One measured figure. `median`/`p95` are in `unit`; `target` reads like "p50 <= 30 ms"."""

    group: str
    name: str
    median: float
    p95: float | None = None
    unit: str = 'ms'
    samples: int = 1
    target: str = ''
    passed: bool | None = None
    """None when the figure has no target (context, a floor, a size for scale)."""
    note: str = ''

    @classmethod
    def of(cls, group: str, name: str, values: list[float], **extra: object) -> Result:
        """Median and p95 of `values`."""
        return cls(
            group,
            name,
            statistics.median(values),
            percentile(values, 0.95),
            samples=len(values),
            **extra,  # type: ignore[arg-type]
        )


def write_json(path: str | Path | None, results: list[Result]) -> None:
    """Write `results` to `path` (nothing when `path` is None)."""
    if path is None:
        return
    Path(path).write_text(json.dumps([asdict(result) for result in results], indent=2))


def read_json(path: str | Path) -> list[Result]:
    """The results a script wrote with `write_json`."""
    return [Result(**row) for row in json.loads(Path(path).read_text())]
