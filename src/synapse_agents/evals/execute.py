"""Running an eval: each case of the run's dataset version as a conversation, judged by pydantic-evals.

Each case is a new conversation with origin `eval`, run by the same engine as the playground's
turns: stored, traced, every model call a ledger row, held to the spending limits that apply. The
run's model (or the agent's own, or its registry preset's model with the preset's settings, the
preset named on the ledger rows) answers the case's message; then pydantic-evals runs the case's
evaluators and the dataset-wide ones on the output, with what the run did as the case's attributes
(`tool_calls`, `cost`) for Synapse's evaluators; the evaluators the project defines are known by
name as they are when the run starts (`known.py`). Cases run `concurrency` at a time; a case that
raises is recorded as errored and the run goes on. Before a case starts, a stop asked for is
honoured. A case whose inputs carry a `history` starts from it: the history is stored as the case
conversation's earlier turns (`conversations/seeded.py`) and the engine replays it before the
case's message; a history that is not model messages errs that case alone. An `LLMJudge`'s model
calls are ledger rows of module `eval` in the case's conversation, under the case's run.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import anyio
import anyio.to_thread
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.settings import ModelSettings
from pydantic_core import to_jsonable_python
from pydantic_evals.dataset import set_eval_attribute

from ..accounting.capability import Spending
from ..accounting.nested import TurnAccount, accounted
from ..chat.service import current_snapshot, lookup_target
from ..conversations.seeded import seed_conversation
from ..conversations.turn_writes import title_from
from ..errors import EvalPresetNotFound
from ..registry.agents_runtime import preset_settings
from ..registry.providers import resolve_model
from ..registry.read import by_key
from ..registry.tables import Preset
from ..runtime.conversation import AppConversation, TurnSettings
from ..scope import Scope
from ..tasks import queue
from ..tasks.service import task_service
from . import runs
from .book import read
from .case_files import attachments_of
from .cases import EvaluatorTypes, dataset_of
from .evaluators import COST, TOOL_CALLS, judging_with
from .known import of_snapshot
from .tables import EvalRun

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime
    from ..targets.target import TurnTarget

# pydantic-evals reports through logfire when it is installed, and logfire warns on every case until
# the app configures it; Synapse records the cases itself (stored conversations, traces), so an
# unconfigured logfire is not something the user needs to hear about at each case.
warnings.filterwarnings('ignore', message=r'No logs or spans will be created until `logfire\.configure\(\)`')

KIND = 'evals.run'
"""The task-queue job that runs an eval (`job:evals.run`)."""
MODULE = 'eval'
"""The ledger module of the evaluators' own model calls (an `LLMJudge`'s)."""


def _jsonable(value: Any) -> Any:
    try:
        return to_jsonable_python(value)
    except Exception:  # an output pydantic cannot serialise: kept as its text
        return repr(value)


def _said(error: BaseException) -> str:
    """The error a case ends with, out of the task groups it came through."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return f'{type(error).__name__}: {error}'


def _assertions(case: Any) -> dict[str, Any]:
    return {name: {'value': bool(r.value), 'reason': r.reason} for name, r in case.assertions.items()}


def _judged(results: dict[str, Any]) -> dict[str, Any]:
    return {name: {'value': r.value, 'reason': r.reason} for name, r in results.items()}


def _judges_account(runtime: SynapseRuntime) -> TurnAccount:
    """Where the model calls of a case's evaluators (an `LLMJudge`'s) are accounted: ledger rows of
    module `eval`, held to the limits, in the case's conversation once it has one."""
    spending = Spending(runtime.store, settings=runtime.settings, module=MODULE)
    return TurnAccount(spending=spending, run_id='', module=MODULE, on_row=lambda _row: None)


def _turn_settings(store: Any, run: EvalRun) -> TurnSettings:
    """How the run's cases run: on its model, or on its preset's model with the preset's settings,
    the preset named on their ledger rows (blocking). `EvalPresetNotFound` when the preset is gone."""
    if run.preset is None:
        return TurnSettings(model=run.model, origin='eval')
    preset = by_key(store, Preset, run.preset)
    if preset is None:
        raise EvalPresetNotFound(f'No preset with key {run.preset!r}.')
    chosen = cast('ModelSettings', preset_settings(preset))
    return TurnSettings(model=preset.model, origin='eval', model_settings=chosen, preset=preset.key)


def _seeded(runtime: SynapseRuntime, target: TurnTarget, inputs: dict[str, Any]) -> str:
    """A new `eval` conversation holding the case's history as its earlier turns, titled by the
    case's message (blocking)."""
    return seed_conversation(
        runtime.store,
        inputs['history'],
        agent_key=target.slug,
        agent_name=target.name,
        origin='eval',
        title=title_from(inputs['message']),
    )


async def _case(
    runtime: SynapseRuntime,
    target: TurnTarget,
    run: EvalRun,
    settings: TurnSettings,
    position: int,
    raw: dict[str, Any],
    evaluators: list[Any],
    types: EvaluatorTypes,
) -> runs.CaseOutcome:
    """Run one case and judge it; an error (the agent's, an evaluator's) is the outcome's `error`."""
    engine = runtime.chat_service().engine
    seen: dict[str, Any] = {}
    judges = _judges_account(runtime)

    async def task(inputs: dict[str, Any]) -> Any:
        conversation_id = None
        if inputs.get('history'):  # the conversation starts with it, before the case's turn
            conversation_id = await anyio.to_thread.run_sync(_seeded, runtime, target, inputs)
        conversation = AppConversation(engine, target, Scope(), settings, conversation_id=conversation_id)
        seen['conversation'] = conversation
        reply = await conversation.send(inputs['message'], attachments=attachments_of(inputs))
        seen['reply'] = reply
        # The judges' calls go in the case's conversation, under the case's run.
        judges.run_id = reply.run_id
        judges.conversation_id = reply.conversation_id
        judges.spending = replace(judges.spending, conversation_id=reply.conversation_id)
        calls = [
            {'name': part.tool_name, 'arguments': part.args_as_dict()}
            for message in reply.messages
            for part in message.parts
            if isinstance(part, ToolCallPart)
        ]
        set_eval_attribute(TOOL_CALLS, calls)
        set_eval_attribute(COST, None if reply.cost is None else str(reply.cost))
        return reply.output

    started = time.perf_counter()
    error: str | None = None
    judged: Any = None
    try:
        with (
            accounted(judges),
            judging_with(partial(resolve_model, runtime.store, runtime.settings.secret_key)),
        ):
            report = await dataset_of([raw], evaluators, types).evaluate(task, name=run.id)
        judged = report.cases[0]
    except Exception as exc:  # the run or an evaluator raised: the case errs, the run goes on
        error = _said(exc)
    reply = seen.get('reply')
    usage = reply.usage if reply is not None else None
    return runs.CaseOutcome(
        position=position,
        case_name=raw['name'],
        conversation_id=seen['conversation'].id if 'conversation' in seen else None,
        output=_jsonable(reply.output) if reply is not None else None,
        assertions=_assertions(judged) if judged is not None else {},
        scores=_judged(judged.scores) if judged is not None else {},
        labels=_judged(judged.labels) if judged is not None else {},
        error=error,
        cost=reply.cost if reply is not None else None,
        input_tokens=usage.input_tokens if usage is not None else 0,
        output_tokens=usage.output_tokens if usage is not None else 0,
        duration_ms=round((time.perf_counter() - started) * 1000),
    )


async def execute(runtime: SynapseRuntime, run_id: str) -> EvalRun:
    """Run the queued run `run_id` to its end (see the module); the run as it ended. A run that is
    not queued (started by another worker, stopped) is left as it is."""
    store = runtime.store
    if not await anyio.to_thread.run_sync(runs.start, store, run_id):
        return await anyio.to_thread.run_sync(runs.get_run, store, run_id)
    run = await anyio.to_thread.run_sync(runs.get_run, store, run_id)
    try:
        dataset = await anyio.to_thread.run_sync(read, store, run.dataset_key, run.dataset_version)
        target = await lookup_target(runtime, run.agent_key)
        await anyio.to_thread.run_sync(runs.set_agent_version, store, run_id, target.agent_version)
        settings = await anyio.to_thread.run_sync(_turn_settings, store, run)
        catalog = runtime.catalog
        types = of_snapshot(await current_snapshot(catalog) if catalog is not None else None).types
    except Exception as exc:  # the dataset is gone, the agent is unknown: the run fails, saying why
        return await anyio.to_thread.run_sync(runs.finish, store, run_id, f'{type(exc).__name__}: {exc}')
    limiter = anyio.Semaphore(run.concurrency)

    async def one(position: int, raw: dict[str, Any]) -> None:
        async with limiter:
            if await anyio.to_thread.run_sync(runs.stopping, store, run_id):
                return
            outcome = await _case(runtime, target, run, settings, position, raw, dataset.evaluators, types)
            await anyio.to_thread.run_sync(runs.record, store, run_id, outcome)

    async with anyio.create_task_group() as group:
        for position, raw in enumerate(dataset.cases):
            group.start_soon(one, position, raw)
    return await anyio.to_thread.run_sync(runs.finish, store, run_id)


async def run_job(runtime: Any, context: dict[str, Any]) -> dict[str, Any]:
    """The task's work: run the eval its context names."""
    run_id = context.get('run_id')
    if not isinstance(run_id, str):
        raise ValueError('an eval task needs a run_id in its context')
    run = await execute(runtime, run_id)
    return {'run_id': run.id, 'status': run.status, 'pass_rate': run.pass_rate}


def queue_run(runtime: Any, run_id: str) -> str | None:
    """Put the run on the task queue and tell the workers (blocking); the task id."""
    task_id = queue.enqueue_job(runtime.store, KIND, {'run_id': run_id}, once_key=run_id)
    if task_id is not None:
        runs.set_task(runtime.store, run_id, task_id)
        task_service(runtime).dispatcher.queued([task_id])
    return task_id
