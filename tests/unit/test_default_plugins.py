"""Synapse's own areas are plugins: one plugin module an area, listed once in plugins/defaults.py,
asked before any installed plugin and in the list's order."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fastapi import APIRouter

from synapse_agents.plugins import DashboardArea, Job, hookimpl
from synapse_agents.plugins.answers import area_tables
from synapse_agents.plugins.defaults import DEFAULT_PLUGINS, default_manager
from synapse_agents.plugins.manager import _answers, plugin_dashboard_areas, plugin_manager, plugin_names
from synapse_agents.runtime.maintenance import HEARTBEAT_JOB, SWEEP_JOB
from synapse_agents.runtime.root import SynapseRuntime
from synapse_agents.settings import load_settings
from synapse_agents.store import Store
from synapse_agents.store.schema import Base


def test_each_default_plugin_is_the_plugin_module_of_one_package() -> None:
    names = list(DEFAULT_PLUGINS)
    assert all(name.startswith('synapse_agents.') and name.endswith('.plugin') for name in names)
    packages = [name.rsplit('.', 1)[0] for name in names]
    assert len(set(packages)) == len(packages)
    assert [name for name, _ in default_manager().list_name_plugin()][: len(names)] == names


def test_each_built_in_area_is_registered_by_its_own_plugin() -> None:
    owners = {
        area.name: name
        for name, answer in _answers(default_manager(), 'register_dashboard_areas')
        for area in answer or []
    }
    assert owners == {
        'agents': 'synapse_agents.chat.plugin',
        'history': 'synapse_agents.chat.plugin',
        'registry': 'synapse_agents.registry.plugin',
        'spend': 'synapse_agents.accounting.plugin',
        'tasks': 'synapse_agents.tasks.plugin',
        'traces': 'synapse_agents.traces.plugin',
        'rules': 'synapse_agents.rules.plugin',
        'memory': 'synapse_agents.memory.plugin',
        'retrieval': 'synapse_agents.retrieval.plugin',
        'evals': 'synapse_agents.evals.plugin',
        'workflows': 'synapse_agents.workflows.plugin',
    }
    assert plugin_names(default_manager()) == plugin_names(plugin_manager((), entry_points=True))


class Eager:
    """A plugin asking to be called first: it still comes after Synapse's own areas."""

    @hookimpl(tryfirst=True)
    def register_dashboard_areas(self) -> Sequence[DashboardArea]:
        return [DashboardArea(name='eager', path='/eager', label='Eager')]

    @hookimpl(tryfirst=True)
    def register_routes(self) -> Sequence[APIRouter]:
        return [APIRouter(prefix='/eager')]

    @hookimpl(tryfirst=True)
    def register_jobs(self) -> Sequence[Job]:
        return [Job('eager', lambda: None)]


def test_an_installed_plugin_comes_after_the_default_ones_even_when_it_asks_to_be_first(
    tmp_path: Path,
) -> None:
    manager = plugin_manager(DEFAULT_PLUGINS, entry_points=False)
    manager.register(Eager(), name='eager')
    assert [area.name for area in plugin_dashboard_areas(manager)] == [
        'agents',
        'history',
        'registry',
        'spend',
        'tasks',
        'traces',
        'rules',
        'memory',
        'retrieval',
        'evals',
        'workflows',
        'eager',
    ]
    assert [name for name, _ in _answers(manager, 'register_routes')][-1] == 'eager'
    store = Store.open('sqlite://', tmp_path / 'attachments')
    try:
        runtime = SynapseRuntime(loaded=load_settings(), store=store, plugins=manager)
        jobs = [
            job.name for _, answer in _answers(manager, 'register_jobs', runtime=runtime) for job in answer
        ]
        assert jobs[:2] == [SWEEP_JOB, HEARTBEAT_JOB]
        assert jobs[-1] == 'eager'
    finally:
        store.close()


def test_each_built_in_area_declares_its_tables_through_its_plugin() -> None:
    owners = {table.name: name for name, table in area_tables(default_manager())}
    assert owners['conversations'] == 'synapse_agents.conversations.plugin'
    assert owners['messages'] == 'synapse_agents.conversations.plugin'
    assert owners['llm_calls'] == 'synapse_agents.accounting.plugin'
    assert owners['spending_limits'] == 'synapse_agents.accounting.plugin'
    assert owners['agent_tasks'] == 'synapse_agents.tasks.plugin'
    assert owners['trace_runs'] == 'synapse_agents.traces.plugin'
    assert owners['registry_providers'] == 'synapse_agents.registry.plugin'
    declared = {
        mapper.class_.__tablename__
        for mapper in Base.registry.mappers
        if mapper.class_.__module__.startswith('synapse_agents.')
        and not mapper.class_.__module__.startswith('synapse_agents.store.')
    }
    assert set(owners) == declared
