"""Eval runs as stored: queued, started, each case's result as it ends, stopped, finished (blocking).

A run names the dataset version it runs, so editing the dataset later never changes what a run
says. Its totals are computed from its case results when it finishes. Stopping is a request the
runner reads before each case: cases under way end, no new one starts, and the run ends
`cancelled`. Whether a run may start or stop is decided in one conditional update, so two workers
or a stop racing a start cannot both win.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import select, update

from ..errors import EvalConflict, EvalInvalid, EvalPresetNotFound, EvalRunNotFound
from ..registry.read import by_key
from ..registry.tables import Preset
from ..store import Store
from ..store.ids import is_valid_id, shown_id
from ..store.schema import utcnow
from .book import read
from .tables import EvalCaseResult, EvalRun

MAX_CONCURRENCY = 16
MAX_SIDE_BY_SIDE = 6
"""The most models one request runs a dataset on."""
FINISHED = ('succeeded', 'failed', 'cancelled')


@dataclass(frozen=True)
class CaseOutcome:
    """What one case did and how it was judged."""

    position: int
    case_name: str
    conversation_id: str | None
    output: Any
    assertions: dict[str, Any]
    scores: dict[str, Any]
    labels: dict[str, Any]
    error: str | None
    cost: Decimal | None
    input_tokens: int
    output_tokens: int
    duration_ms: int

    @property
    def passed(self) -> bool:
        return self.error is None and all(a.get('value') is True for a in self.assertions.values())


def create_run(
    store: Store,
    dataset_key: str,
    agent_key: str,
    *,
    model: str | None = None,
    preset: str | None = None,
    label: str | None = None,
    concurrency: int = 4,
    version: int | None = None,
) -> EvalRun:
    """A queued run of the dataset (its latest version, or `version`), on the agent's own model,
    on `model`, or with the registry preset `preset` (its model and settings; `EvalPresetNotFound`
    when there is none). `model` and `preset` together are refused."""
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise EvalInvalid('concurrency', f'from 1 to {MAX_CONCURRENCY}')
    if not isinstance(agent_key, str) or not agent_key.strip() or len(agent_key) > 255:
        raise EvalInvalid('agent', 'the slug of the agent to run')
    if model is not None and (not model.strip() or len(model) > 255):
        raise EvalInvalid('model', 'a model id, e.g. openai:gpt-5-mini')
    if preset is not None:
        if model is not None:
            raise EvalInvalid(
                'preset', 'a run takes a model or a preset (the preset names its model), not both'
            )
        if not preset.strip() or len(preset) > 100:
            raise EvalInvalid('preset', 'a registry preset key')
        if by_key(store, Preset, preset) is None:
            raise EvalPresetNotFound(f'No preset with key {preset!r}.')
    dataset = read(store, dataset_key, version)
    run = EvalRun(
        dataset_key=dataset.key,
        dataset_version=dataset.version,
        agent_key=agent_key,
        model=model,
        preset=preset,
        label=label,
        status='queued',
        concurrency=concurrency,
        case_count=len(dataset.cases),
        passed=0,
        failed=0,
        errored=0,
        scores={},
        input_tokens=0,
        output_tokens=0,
        duration_ms=0,
        created_at=utcnow(),
    )
    with store.write() as session:
        session.add(run)
        session.flush()
        session.expunge(run)
    return run


def create_runs(
    store: Store,
    dataset_key: str,
    agent_key: str,
    models: list[str | None],
    *,
    presets: Sequence[str] = (),
    label: str | None = None,
    concurrency: int = 4,
    version: int | None = None,
) -> list[EvalRun]:
    """One queued run per model (None: the agent's own), then one per registry preset, all of the
    same dataset version, each labelled with its model or `preset <key>` (after `label` when given).
    Nothing is stored when any model or preset is refused."""
    if not 1 <= len(models) + len(presets) <= MAX_SIDE_BY_SIDE:
        raise EvalInvalid('models', f'from 1 to {MAX_SIDE_BY_SIDE} model ids and presets in all')
    if len(set(models)) != len(models):
        raise EvalInvalid('models', 'each model once')
    if len(set(presets)) != len(presets):
        raise EvalInvalid('presets', 'each preset once')
    for model in models:
        if model is not None and (not model.strip() or len(model) > 255):
            raise EvalInvalid('models', 'model ids, e.g. openai:gpt-5-mini')
    for preset in presets:
        if not preset.strip() or len(preset) > 100:
            raise EvalInvalid('presets', 'registry preset keys')
        if by_key(store, Preset, preset) is None:
            raise EvalPresetNotFound(f'No preset with key {preset!r}.')
    pinned = read(store, dataset_key, version).version  # a change made meanwhile is not half-run

    def labelled(shown: str) -> str:
        return (f'{label} · {shown}' if label else shown)[:200]

    choices: list[tuple[str | None, str | None, str]] = [
        (model, None, model or "agent's own model") for model in models
    ]
    choices += [(None, preset, f'preset {preset}') for preset in presets]
    return [
        create_run(
            store,
            dataset_key,
            agent_key,
            model=model,
            preset=preset,
            label=labelled(shown),
            concurrency=concurrency,
            version=pinned,
        )
        for model, preset, shown in choices
    ]


def set_task(store: Store, run_id: str, task_id: str | None) -> None:
    with store.write() as session:
        session.execute(update(EvalRun).where(EvalRun.id == run_id).values(task_id=task_id))


def get_run(store: Store, run_id: str) -> EvalRun:
    if not is_valid_id(run_id):
        raise EvalRunNotFound(f'No eval run {shown_id(run_id)}.')
    with store.read() as session:
        run = session.get(EvalRun, run_id)
        if run is None:
            raise EvalRunNotFound(f'No eval run {shown_id(run_id)}.')
        session.expunge(run)
    return run


def results(store: Store, run_id: str) -> list[EvalCaseResult]:
    """The run's case results in the dataset's order."""
    with store.read() as session:
        rows = list(
            session.scalars(
                select(EvalCaseResult)
                .where(EvalCaseResult.run_id == run_id)
                .order_by(EvalCaseResult.position)
            )
        )
        session.expunge_all()
    return rows


def listed(store: Store, dataset_key: str | None = None, limit: int = 50) -> list[EvalRun]:
    """Runs, newest first; with `dataset_key`, that dataset's."""
    query = select(EvalRun).order_by(EvalRun.created_at.desc(), EvalRun.id.desc()).limit(limit)
    if dataset_key is not None:
        query = query.where(EvalRun.dataset_key == dataset_key)
    with store.read() as session:
        rows = list(session.scalars(query))
        session.expunge_all()
    return rows


def start(store: Store, run_id: str) -> bool:
    """Claim a queued run for this worker; False when it is not queued (started elsewhere, stopped)."""
    with store.write() as session:
        claimed = session.execute(
            update(EvalRun)
            .where(EvalRun.id == run_id, EvalRun.status == 'queued')
            .values(status='running', started_at=utcnow())
        )
    return bool(claimed.rowcount)  # type: ignore[attr-defined]


def set_agent_version(store: Store, run_id: str, version: int | None) -> None:
    """Record which version of a configured agent the run's cases run on."""
    with store.write() as session:
        session.execute(update(EvalRun).where(EvalRun.id == run_id).values(agent_version=version))


def request_stop(store: Store, run_id: str) -> EvalRun:
    """Ask the run to stop: a queued run is cancelled at once, a running one stops before its next case."""
    run = get_run(store, run_id)
    with store.write() as session:
        session.execute(
            update(EvalRun)
            .where(EvalRun.id == run_id, EvalRun.status == 'queued')
            .values(status='cancelled', finished_at=utcnow())
        )
        session.execute(
            update(EvalRun).where(EvalRun.id == run_id, EvalRun.status == 'running').values(status='stopping')
        )
    if run.status in FINISHED:
        raise EvalConflict(f'Eval run {run_id} has already ended ({run.status}).')
    return get_run(store, run_id)


def stopping(store: Store, run_id: str) -> bool:
    with store.read() as session:
        status = session.scalar(select(EvalRun.status).where(EvalRun.id == run_id))
    return status != 'running'


def record(store: Store, run_id: str, outcome: CaseOutcome) -> None:
    """Write one case's result (as it ends: a run that stops keeps what it did)."""
    with store.write() as session:
        session.add(
            EvalCaseResult(
                run_id=run_id,
                position=outcome.position,
                case_name=outcome.case_name,
                conversation_id=outcome.conversation_id,
                output=outcome.output,
                passed=outcome.passed,
                assertions=outcome.assertions,
                scores=outcome.scores,
                labels=outcome.labels,
                error=outcome.error,
                cost=outcome.cost,
                input_tokens=outcome.input_tokens,
                output_tokens=outcome.output_tokens,
                duration_ms=outcome.duration_ms,
                created_at=utcnow(),
            )
        )


def finish(store: Store, run_id: str, error: str | None = None) -> EvalRun:
    """Total the run's results and end it: `cancelled` when it was asked to stop, `failed` when it
    could not run (`error`), else `succeeded` (whatever its cases' verdicts)."""
    rows = results(store, run_id)
    sums: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for name, score in (row.scores or {}).items():
            if isinstance(score.get('value'), int | float):
                sums[name].append(float(score['value']))
    costs = [row.cost for row in rows if row.cost is not None]
    passed = sum(1 for row in rows if row.passed)
    errored = sum(1 for row in rows if row.error is not None)
    with store.write() as session:
        status = session.scalar(select(EvalRun.status).where(EvalRun.id == run_id))
        ended = 'failed' if error else ('cancelled' if status == 'stopping' else 'succeeded')
        session.execute(
            update(EvalRun)
            .where(EvalRun.id == run_id)
            .values(
                status=ended,
                passed=passed,
                failed=len(rows) - passed,
                errored=errored,
                pass_rate=passed / len(rows) if rows else None,
                scores={name: sum(values) / len(values) for name, values in sums.items()},
                cost=sum(costs, Decimal(0)) if len(costs) == len(rows) and rows else None,
                input_tokens=sum(row.input_tokens for row in rows),
                output_tokens=sum(row.output_tokens for row in rows),
                duration_ms=sum(row.duration_ms for row in rows),
                error=error,
                finished_at=utcnow(),
            )
        )
    return get_run(store, run_id)


@dataclass(frozen=True)
class CaseChange:
    """One case in two runs: its verdicts and what changed."""

    case_name: str
    before: EvalCaseResult | None
    after: EvalCaseResult | None

    @property
    def change(self) -> str:
        """`regressed` (passed before, fails now), `fixed`, `still passing`, `still failing`,
        `new` or `gone`."""
        if self.before is None:
            return 'new'
        if self.after is None:
            return 'gone'
        if self.before.passed and not self.after.passed:
            return 'regressed'
        if not self.before.passed and self.after.passed:
            return 'fixed'
        return 'still passing' if self.after.passed else 'still failing'


def compare(store: Store, before_id: str, after_id: str) -> list[CaseChange]:
    """The cases of two runs side by side, by case name: regressions first."""
    get_run(store, before_id)
    get_run(store, after_id)
    before = {row.case_name: row for row in results(store, before_id)}
    after = {row.case_name: row for row in results(store, after_id)}
    names = list(after) + [name for name in before if name not in after]
    order = {'regressed': 0, 'new': 1, 'still failing': 2, 'gone': 3, 'fixed': 4, 'still passing': 5}
    changes = [CaseChange(name, before.get(name), after.get(name)) for name in names]
    return sorted(changes, key=lambda c: order[c.change])
