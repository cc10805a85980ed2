"""A run with a registry preset: the cases run on the preset's model with its settings (the agent
itself unchanged), and the ledger rows name the preset. A preset with a model, or one that does
not exist, is refused before anything is stored; one deleted before the run starts fails the run."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from eval_helpers import RECORDER, project, run_to_end
from synapse_agents.accounting.tables import LlmCall
from synapse_agents.errors import EvalInvalid, EvalPresetNotFound
from synapse_agents.evals import book, runs
from synapse_agents.registry import presets_store
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.store import Store

CASES = [{'name': 'hello', 'inputs': {'message': 'Hello'}, 'evaluators': [{'Contains': 'Hello'}]}]


def test_the_cases_run_with_the_presets_model_settings(context: SynapseRuntime, store: Store) -> None:
    with project(context, {'{package}/agents.py': RECORDER}) as (package, agents):
        agent = agents.recorder
        # The preset names the agent's own model: the FunctionModel sees what the run was given.
        presets_store.create(
            store,
            {
                'key': 'careful',
                'model': 'function:recorder',
                'temperature': 0.3,
                'max_tokens': 50,
                'provider_options': {'seed': 7},
            },
        )
        book.create(store, 'greet', 'Greet', cases=CASES)
        queued = runs.create_run(store, 'greet', f'{package}.agents.recorder', preset='careful')
        assert (queued.preset, queued.model) == ('careful', None)
        run = run_to_end(context, queued.id)
        assert (run.status, run.passed) == ('succeeded', 1), runs.results(store, run.id)
        (seen,) = agents.SEEN
        assert seen['settings'] == {'temperature': 0.3, 'max_tokens': 50, 'seed': 7}
        assert agent.model_settings is None, "the agent's own settings are never changed"

        plain = run_to_end(context, runs.create_run(store, 'greet', f'{package}.agents.recorder').id)
        assert plain.passed == 1 and not agents.SEEN[-1]['settings'], 'a run without a preset sends none'
    (case,) = runs.results(store, run.id)
    with store.read() as session:
        presets = session.scalars(
            select(LlmCall.preset).where(LlmCall.conversation_id == case.conversation_id)
        )
        assert list(presets) == ['careful'], 'the ledger row names the preset'


def test_a_preset_is_checked_when_the_run_is_made(context: SynapseRuntime, store: Store) -> None:
    book.create(store, 'greet', 'Greet', cases=CASES)
    presets_store.create(store, {'key': 'quick', 'model': 'test'})
    with pytest.raises(EvalInvalid, match='not both') as both:
        runs.create_run(store, 'greet', 'some.agent', model='test', preset='quick')
    assert both.value.field == 'preset'
    with pytest.raises(EvalPresetNotFound, match="'nope'"):
        runs.create_run(store, 'greet', 'some.agent', preset='nope')
    with pytest.raises(EvalPresetNotFound):
        runs.create_runs(store, 'greet', 'some.agent', ['test'], presets=['quick', 'nope'])
    assert runs.listed(store) == [], 'nothing is stored when a run is refused'
    side = runs.create_runs(store, 'greet', 'some.agent', [None], presets=['quick'])
    assert [(r.model, r.preset, r.label) for r in side] == [
        (None, None, "agent's own model"),
        (None, 'quick', 'preset quick'),
    ]


def test_a_preset_deleted_before_the_run_fails_it(context: SynapseRuntime, store: Store) -> None:
    book.create(store, 'greet', 'Greet', cases=CASES)
    presets_store.create(store, {'key': 'gone', 'model': 'test'})
    queued = runs.create_run(store, 'greet', 'synapse_agents.demo.agents.support-agent', preset='gone')
    presets_store.delete(store, 'gone')
    run = run_to_end(context, queued.id)
    assert run.status == 'failed' and run.error is not None and "No preset with key 'gone'" in run.error
