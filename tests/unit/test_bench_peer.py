"""The peer bench's tooling: the other commit's worktree, and the per-feature arithmetic."""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / 'bench'


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module('bench_peer')


def test_checkout_makes_and_removes_a_worktree_of_the_ref(bench: ModuleType, tmp_path: Path) -> None:
    against = importlib.import_module('against')
    head = subprocess.run(
        ['git', 'rev-parse', '--short', 'HEAD'], cwd=BENCH, capture_output=True, text=True, check=True
    ).stdout.strip()
    found = against.checkout('HEAD', tmp_path / 'other')
    try:
        assert head in found.ref
        assert (found.src / 'synapse_agents' / '__init__.py').is_file()
    finally:
        found.remove()
    assert not found.path.exists()
    listed = subprocess.run(['git', 'worktree', 'list'], cwd=BENCH, capture_output=True, text=True).stdout
    assert str(found.path) not in listed


def test_features_subtract_the_default_and_halve_per_model_call(bench: ModuleType) -> None:
    def server(name: str, first: float, whole: float) -> object:
        return bench.Server(name, samples=[(first / 1000, whole / 1000)] * 3)

    rotation = [server('synapse', 20, 30), server('no traces', 15, 24), server('1 limit', 21, 33)]
    rows = {r.name: r.median for r in bench.features(rotation, 3)}
    assert rows['traces (the trace tree): per turn'] == pytest.approx(6)
    assert rows['traces (the trace tree): before the first chunk'] == pytest.approx(5)
    assert rows['spending, 1 limit: per turn'] == pytest.approx(3)
