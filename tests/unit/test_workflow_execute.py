"""`workflows.execute` on every selected database: spending limits hold for every step (a limit on the
steps' agent lets the first step's priced call through and refuses the second step's, and the run
fails at that step); a run failed by request while a step runs stops before its next step."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from spending_models import CALL_COST, add_limit, add_price
from synapse_agents import Synapse
from synapse_agents.chat.service import current_snapshot
from synapse_agents.store import Store
from synapse_agents.workflows import book, runs
from synapse_agents.workflows.execute import execute

pytestmark = pytest.mark.anyio

AGENTS = 'from spending_models import priced_agent\n\ncapped = priced_agent()\n'
STOPPER = """
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

WHILE_RUNNING = []
stopper = Agent(TestModel(call_tools=['pause'], custom_output_text='paused'), name='stopper')


@stopper.tool_plain
def pause() -> str:
    \"\"\"Run what the test asked for while the step runs.\"\"\"
    for call in WHILE_RUNNING:
        call()
    return 'ok'
"""


def project_with(tmp_path: Path, name: str, source: str) -> Path:
    project = tmp_path / 'project'
    (project / 'wf_agents').mkdir(parents=True)
    (project / 'wf_agents' / '__init__.py').write_text('')
    (project / 'wf_agents' / f'{name}.py').write_text(source)
    for module in [m for m in sys.modules if m == 'wf_agents' or m.startswith('wf_agents.')]:
        sys.modules.pop(module)
    return project


async def test_a_limit_refuses_the_step_that_would_pass_it(database_url: str, tmp_path: Path) -> None:
    project = project_with(tmp_path, 'priced', AGENTS)
    async with Synapse(
        project, home=project / '.synapse', database_url=database_url, agents=['wf_agents']
    ) as syn:
        store: Store = syn.runtime.store
        add_price(store)
        add_limit(store, 'agent', 'wf_agents.priced.capped', CALL_COST * 3 / 2)
        definition = {
            'steps': [
                {'name': 'first', 'agent_name': 'wf_agents.priced.capped'},
                {
                    'name': 'second',
                    'agent_name': 'priced',
                    'input_mapping': {'message': '$.steps.first.output.answer'},
                },
            ]
        }
        run = runs.create_run(store, book.create(store, 'capped', 'Capped', definition), 'go')
        ended = await execute(syn.runtime, run.id)
        steps = runs.steps(store, run.id)
    assert ended.status == 'failed' and ended.failed_step == 'second', ended.error
    assert ended.error is not None and "Step 'second' (2 of 2) failed: SpendingLimitExceeded" in ended.error
    assert [s.status for s in steps] == ['completed', 'failed']
    assert steps[0].cost == CALL_COST and steps[1].conversation_id is not None


async def test_a_run_failed_by_request_stops_before_its_next_step(database_url: str, tmp_path: Path) -> None:
    project = project_with(tmp_path, 'stop', STOPPER)
    async with Synapse(
        project, home=project / '.synapse', database_url=database_url, agents=['wf_agents']
    ) as syn:
        store: Store = syn.runtime.store
        steps = [{'name': name, 'agent_name': 'stopper'} for name in ('one', 'two', 'three')]
        run = runs.create_run(store, book.create(store, 'stops', 'Stops', {'steps': steps}), 'go')
        await current_snapshot(syn.runtime.catalog)  # the scan imports the agents' module
        hooks = sys.modules['wf_agents.stop'].WHILE_RUNNING
        hooks.append(lambda: runs.update_running(store, run.id, status='failed', error='Stopped by hand.'))
        ended = await execute(syn.runtime, run.id)
        rows = runs.steps(store, run.id)
    assert (ended.status, ended.error, ended.current_step_index) == ('failed', 'Stopped by hand.', 0)
    assert [(r.name, r.status) for r in rows] == [('one', 'completed')], (
        'the step under way ends; no other starts'
    )
