"""Workflows and runs as stored, on every selected database: versions, a claim taken once, finished
runs immutable, SET NULL when the definition goes, sandbox cleanup in the caller's transaction, and
a run whose task the sweep failed (its worker stopped heart-beating) failed by `reconcile`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from synapse_agents.errors import WorkflowConflict, WorkflowNotFound
from synapse_agents.store import Store
from synapse_agents.store.schema import utcnow
from synapse_agents.tasks import queue
from synapse_agents.tasks.tables import AgentTask
from synapse_agents.workflows import book, runs
from synapse_agents.workflows.execute import KIND

ONE = {'steps': [{'name': 's', 'agent_name': 'summariser'}]}
TWO = {'steps': [{'name': 's', 'agent_name': 'summariser'}, {'name': 't', 'agent_name': 'summariser'}]}


def test_versions_and_stale_changes(store: Store) -> None:
    created = book.create(store, 'flow', 'Flow', ONE)
    assert (created.version, created.latest, created.change) == (1, 1, 'created')
    changed = book.change(store, 'flow', definition=TWO, expected_version=1)
    assert (changed.version, changed.definition) == (2, TWO)
    with pytest.raises(WorkflowConflict, match='is at version 2, not 1'):
        book.change(store, 'flow', name='Late', expected_version=1)
    assert book.read(store, 'flow', 1).definition == ONE and book.read(store, 'flow').latest == 2
    assert [v.version for v in book.versions(store, 'flow')] == [2, 1]
    with pytest.raises(WorkflowConflict):
        book.create(store, 'flow', 'Again', ONE)
    with pytest.raises(WorkflowNotFound):
        book.read(store, 'flow', 7)


def test_a_run_is_claimed_once_and_immutable_once_finished(store: Store) -> None:
    run = runs.create_run(store, book.create(store, 'flow', 'Flow', TWO), {'message': 'hi'})
    assert (run.status, run.current_step_index, run.step_count, run.input) == (
        'running',
        -1,
        2,
        {'message': 'hi'},
    )
    assert runs.claim(store, run.id) is True
    assert runs.claim(store, run.id) is False, 'a second worker does not run it'
    step = runs.step_started(store, run.id, 0, 's', 'summariser')
    runs.step_ended(store, step, status='completed', output={'answer': 'x'}, total_tokens=7)
    done = runs.finish(store, run.id, output={'final': 'x'})
    assert (done.status, done.output, done.total_tokens, done.current_step_index) == (
        'completed',
        {'final': 'x'},
        7,
        0,
    )
    assert done.completed_at is not None and done.duration_ms is not None and done.cost is None
    with pytest.raises(WorkflowConflict, match='has finished'):
        runs.update_running(store, run.id, error='late')
    with pytest.raises(WorkflowConflict):
        runs.step_started(store, run.id, 1, 't', 'summariser')
    assert runs.finish(store, run.id, error='again').status == 'completed'
    assert runs.claim(store, run.id) is False


def test_deleting_a_workflow_keeps_its_runs_unlinked(store: Store) -> None:
    workflow = book.create(store, 'flow', 'Flow', ONE)
    run = runs.create_run(store, workflow, None)
    assert book.remove(store, 'flow') == 1
    kept = runs.get_run(store, run.id)
    assert (kept.workflow_id, kept.workflow_key, kept.workflow_version) == (None, 'flow', 1)
    assert runs.listed(store, workflow_key='flow')[0].id == run.id
    with pytest.raises(WorkflowNotFound):
        book.versions(store, 'flow')


def test_sandbox_cleanup_runs_in_the_callers_transaction(store: Store) -> None:
    sandbox = book.create(store, 'trial', 'Trial', ONE, is_sandbox=True)
    real = book.create(store, 'real', 'Real', ONE)
    trial_run = runs.create_run(store, sandbox, None)
    runs.step_started(store, trial_run.id, 0, 's', 'summariser')
    real_run = runs.create_run(store, real, None)
    assert [w.key for w in book.listed(store)] == ['real']
    assert [w.key for w in book.listed(store, 'include')] == ['real', 'trial']
    assert book.read(store, 'trial').is_sandbox is True
    with store.write() as session:
        assert book.cleanup_sandbox(session) == ('workflows', 1)
    assert [r.id for r in runs.listed(store, sandbox='include')] == [real_run.id]
    assert runs.steps(store, trial_run.id) == []
    with pytest.raises(WorkflowNotFound):
        book.read(store, 'trial')


def test_a_run_whose_worker_died_is_failed_after_the_sweep(store: Store) -> None:
    run = runs.create_run(store, book.create(store, 'flow', 'Flow', TWO), None)
    task_id = queue.enqueue_job(store, KIND, {'run_id': run.id}, once_key=run.id)
    assert task_id is not None
    runs.set_task(store, run.id, task_id)
    assert runs.claim(store, run.id)
    runs.step_started(store, run.id, 0, 's', 'summariser')
    long_ago = utcnow() - timedelta(minutes=5)
    with store.write() as session:  # a worker took the task, then stopped heart-beating
        session.execute(
            update(AgentTask)
            .where(AgentTask.id == task_id)
            .values(status='running', worker='host:1:celery', started_at=long_ago, heartbeat_at=long_ago)
        )
    assert runs.reconcile(store) == [], 'a running task keeps its run running'
    assert queue.sweep(store, 60) == [task_id]
    assert runs.reconcile(store) == [run.id]
    failed = runs.get_run(store, run.id)
    assert failed.status == 'failed' and failed.completed_at is not None and failed.current_step_index == 0
    assert failed.error is not None and failed.error.startswith(
        'The run stopped when its task ended (failed)'
    )
    assert 'The worker host:1:celery stopped heart-beating' in failed.error
    assert failed.failed_step == 's'
    [step] = runs.steps(store, run.id)
    assert (step.status, step.error, step.completed_at is not None) == ('failed', failed.error, True)
    assert runs.reconcile(store) == []
