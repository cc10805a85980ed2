"""An output type that also lists DeferredToolRequests shows the answer's type and schema and a note."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults

from synapse_agents.discovery.output_info import read_output, without_deferred


class Ticket(BaseModel):
    title: str
    priority: int


def test_text_and_deferred_requests_read_as_a_text_answer_that_may_pause() -> None:
    agent = Agent('test', output_type=[str, DeferredToolRequests])
    output = read_output(agent, Path.cwd())
    plain = read_output(Agent('test', output_type=str), Path.cwd())
    assert (
        (output.type, output.mode, output.schema_)
        == (plain.type, plain.mode, plain.schema_)
        == ('str', 'text', None)
    )
    assert output.deferred is not None and 'approval' in output.deferred
    assert plain.deferred is None


def test_a_model_and_deferred_requests_show_the_model_schema_alone() -> None:
    agent = Agent('test', output_type=[Ticket, DeferredToolRequests])
    output = read_output(agent, Path.cwd())
    alone = read_output(Agent('test', output_type=Ticket), Path.cwd())
    assert output.type == 'Ticket'
    assert output.schema_ == alone.schema_
    assert output.schema_ is not None and set(output.schema_['properties']) == {'title', 'priority'}
    assert 'DeferredToolRequests' not in str(output.schema_)
    assert [tool.name for tool in output.tools] == [tool.name for tool in alone.tools]
    assert output.deferred is not None and 'DeferredToolRequests' in output.deferred


def test_a_union_with_deferred_types_is_read_the_same() -> None:
    union = Agent('test', output_type=Ticket | DeferredToolRequests)  # type: ignore[arg-type]
    output = read_output(union, Path.cwd())
    assert output.type == 'Ticket' and output.deferred is not None
    assert 'DeferredToolRequests' not in str(output.schema_)
    assert without_deferred([Ticket, str, DeferredToolResults]) == ([Ticket, str], [DeferredToolResults])
    assert without_deferred(DeferredToolRequests) == (DeferredToolRequests, [])
