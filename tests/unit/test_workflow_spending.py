"""Spending limits hold for every step of a workflow run, on every selected database: a limit on the
steps' agent lets the first step's priced call through and refuses the second step's, and the run
fails at that step."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from spending_models import CALL_COST, add_limit, add_price
from synapse_agents import Synapse
from synapse_agents.store import Store
from synapse_agents.workflows import book, runs
from synapse_agents.workflows.execute import execute

pytestmark = pytest.mark.anyio

AGENTS = 'from spending_models import priced_agent\n\ncapped = priced_agent()\n'


async def test_a_limit_refuses_the_step_that_would_pass_it(database_url: str, tmp_path: Path) -> None:
    project = tmp_path / 'project'
    (project / 'wf_agents').mkdir(parents=True)
    (project / 'wf_agents' / '__init__.py').write_text('')
    (project / 'wf_agents' / 'priced.py').write_text(AGENTS)
    sys.modules.pop('wf_agents', None)
    sys.modules.pop('wf_agents.priced', None)
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
