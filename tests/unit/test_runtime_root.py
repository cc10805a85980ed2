"""The runtime root: how it is opened, started and stopped, and its background job runner."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import anyio
import pytest
from sqlalchemy import select, update
from starlette.applications import Starlette

from chat_helpers import seed_conversation
from synapse_agents.conversations.tables import Message
from synapse_agents.plugins import hookimpl, plugin_manager
from synapse_agents.plugins.defaults import DEFAULT_PLUGINS
from synapse_agents.runtime.jobs import Job, JobRunner
from synapse_agents.runtime.maintenance import HEARTBEAT_JOB, PRUNE_INTERVAL_S, PRUNE_JOB, SWEEP_JOB
from synapse_agents.runtime.root import DEMO_TARGET, SynapseRuntime
from synapse_agents.settings import LoadedSettings, load_settings
from synapse_agents.store import Store
from synapse_agents.store.instances import HEARTBEAT_INTERVAL_S
from synapse_agents.web.mount import mount
from synapse_agents.workflows.plugin import RECONCILE_JOB

# -- the job runner -----------------------------------------------------------------------


def test_start_up_jobs_finish_in_order_before_start_returns() -> None:
    done: list[str] = []

    async def later() -> None:
        await asyncio.sleep(0.01)
        done.append('async')

    async def main() -> None:
        runner = JobRunner()
        runner.add_job('first', None, lambda: done.append('sync'))
        runner.add_job('second', None, later)
        await runner.start()
        assert done == ['sync', 'async']
        assert runner.running
        await runner.stop()

    anyio.run(main)


def test_a_failing_start_up_job_fails_the_start() -> None:
    def boom() -> None:
        raise RuntimeError('database unreachable')

    runner = JobRunner()
    runner.add_job('boom', None, boom)
    with pytest.raises(RuntimeError, match='database unreachable'):
        anyio.run(runner.start)


def test_a_periodic_job_repeats_survives_its_failures_and_stops(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[int] = []

    def flaky() -> None:
        calls.append(len(calls))
        if len(calls) == 1:
            raise ValueError('first run fails')

    async def main() -> None:
        runner = JobRunner()
        runner.add_job('flaky', 0.01, flaky)
        await runner.start()
        assert runner.running
        for _ in range(200):
            if len(calls) >= 3:
                break
            await asyncio.sleep(0.01)
        await runner.stop()
        stopped_at = len(calls)
        await asyncio.sleep(0.05)
        assert len(calls) == stopped_at  # no run after stop
        assert not runner.running

    with caplog.at_level(logging.ERROR, logger='synapse.jobs'):
        anyio.run(main)
    assert len(calls) >= 3
    assert "background job 'flaky' failed" in caplog.text


def test_run_at_start_false_waits_one_interval_first() -> None:
    calls: list[float] = []

    async def main() -> None:
        runner = JobRunner()
        runner.add_job('late', 30, lambda: calls.append(1), run_at_start=False)
        await runner.start()
        await asyncio.sleep(0.05)
        await runner.stop()

    anyio.run(main)
    assert calls == []


def test_a_job_added_while_running_starts_at_once() -> None:
    calls: list[int] = []

    async def main() -> None:
        runner = JobRunner()
        await runner.start()
        runner.add_job('heartbeat', 60, lambda: calls.append(1))
        for _ in range(100):
            if calls:
                break
            await asyncio.sleep(0.01)
        await runner.stop()

    anyio.run(main)
    assert calls == [1]


def test_job_names_are_unique_and_intervals_positive() -> None:
    runner = JobRunner()
    runner.add_job('one', None, lambda: None)
    with pytest.raises(ValueError, match="a job named 'one' is already added"):
        runner.add_job('one', 5, lambda: None)
    with pytest.raises(ValueError, match='interval_s must be more than 0'):
        Job('zero', lambda: None, 0)
    with pytest.raises(ValueError, match='needs a name'):
        Job(' ', lambda: None)


# -- the root -----------------------------------------------------------------------------


def test_open_migrates_the_sqlite_default_and_builds_the_catalog() -> None:
    loaded = load_settings()
    with SynapseRuntime.open(loaded, demo=True) as runtime:
        assert runtime.store.dialect == 'sqlite'
        assert runtime.targets == [DEMO_TARGET]
        assert runtime.catalog is not None and runtime.catalog.targets == [DEMO_TARGET]
        assert runtime.store.counts()['conversations'] == 0  # the tables exist
    with SynapseRuntime.open(loaded, agents=False) as runtime:
        assert runtime.catalog is None


def test_the_root_sweeps_turns_left_in_flight_when_it_starts(settings: LoadedSettings, store: Store) -> None:
    crashed = seed_conversation(store)
    with store.write() as session:
        session.execute(
            update(Message)
            .where(Message.conversation_id == crashed, Message.role == 'assistant')
            .values(status='streaming', owner=None)  # no owner: no live process runs it
        )
    runtime = SynapseRuntime(
        loaded=settings, store=store, plugins=plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    )

    async def main() -> None:
        async with runtime.running():
            assert [job.name for job in runtime.jobs.jobs] == [SWEEP_JOB, HEARTBEAT_JOB, RECONCILE_JOB]
            assert runtime.jobs.jobs[1].interval_s == HEARTBEAT_INTERVAL_S

    anyio.run(main)
    with store.read() as session:
        query = select(Message.status).where(Message.conversation_id == crashed, Message.role == 'assistant')
        assert list(session.scalars(query)) == ['interrupted']
    assert runtime.jobs.runs[SWEEP_JOB] == 1
    assert runtime.jobs.jobs == []  # stop() forgets the jobs it added: the root can start again


def test_maintenance_adds_the_daily_auto_prune(settings: LoadedSettings, store: Store) -> None:
    old = seed_conversation(store, updated=datetime.now(UTC) - timedelta(days=400))
    settings.settings.auto_prune = True
    runtime = SynapseRuntime(loaded=settings, store=store, maintenance=True)

    async def main() -> None:
        async with runtime.running():
            prune = {job.name: job for job in runtime.jobs.jobs}[PRUNE_JOB]
            assert prune.interval_s == PRUNE_INTERVAL_S
            for _ in range(200):
                if runtime.jobs.runs.get(PRUNE_JOB):
                    break
                await asyncio.sleep(0.01)

    anyio.run(main)
    assert store.counts()['conversations'] == 0, old
    runtime.maintenance = False

    async def names() -> list[str]:
        async with runtime.running():
            return [job.name for job in runtime.jobs.jobs]

    assert anyio.run(names) == [SWEEP_JOB, HEARTBEAT_JOB, RECONCILE_JOB]


def test_the_chat_service_is_made_once_and_closed_by_stop(settings: LoadedSettings, store: Store) -> None:
    runtime = SynapseRuntime(loaded=settings, store=store)
    service = runtime.chat_service()
    assert runtime.chat_service() is service
    anyio.run(runtime.stop)
    assert runtime.chat is None
    assert runtime.chat_service() is not service
    anyio.run(runtime.stop)


class CountingPlugin:
    def __init__(self) -> None:
        self.seen: list[SynapseRuntime] = []

    @hookimpl
    def register_jobs(self, runtime: SynapseRuntime) -> Sequence[Job]:
        return [Job('plugin-job', lambda: self.seen.append(runtime))]


def test_the_root_runs_a_plugins_job(settings: LoadedSettings, store: Store) -> None:
    plugin = CountingPlugin()
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    manager.register(plugin, name='counting')
    runtime = SynapseRuntime(loaded=settings, store=store, plugins=manager)
    anyio.run(runtime.start)
    anyio.run(runtime.stop)
    assert plugin.seen == [runtime]
    assert runtime.jobs.runs == {SWEEP_JOB: 1, 'plugin-job': 1}  # the reconcile waits one interval


def test_mount_runs_no_maintenance_unless_asked() -> None:
    host = Starlette()
    assert mount(host, '/synapse').state.synapse.maintenance is False
    assert mount(host, '/other', maintenance=True).state.synapse.maintenance is True


def test_a_root_shared_by_two_apps_runs_its_jobs_once(settings: LoadedSettings, store: Store) -> None:
    """Started twice, the root adds its jobs once; only the second stop stops them."""
    runtime = SynapseRuntime(
        loaded=settings, store=store, plugins=plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    )

    async def main() -> None:
        async with runtime.running():
            async with runtime.running():
                assert runtime.jobs.runs == {SWEEP_JOB: 1}
            assert runtime.jobs.running
        assert not runtime.jobs.running

    anyio.run(main)
