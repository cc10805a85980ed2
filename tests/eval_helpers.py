"""Helpers for the eval tests: a project on disk whose agent records what its model received, and a
run executed in-process to its end.

The project is a real module written to the test's project folder and found by discovery's own
`Catalog`, like any project `synapse serve` inspects. Its agent answers on a `FunctionModel` that
keeps, per model request, the messages it was sent and the model settings it was given (`SEEN`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

from fixtures.projects import isolated_imports, unique_name, write_files
from synapse_agents.discovery import Catalog
from synapse_agents.evals.execute import execute
from synapse_agents.evals.tables import EvalRun
from synapse_agents.runtime.root import SynapseRuntime

RECORDER = """
from pydantic_ai import Agent
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

SEEN: list[dict] = []


def _said(messages, info: AgentInfo) -> str:
    SEEN.append({'messages': list(messages), 'settings': info.model_settings})
    prompts = [
        part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]
    return f'You said: {prompts[-1]}'


def answer(messages, info):
    return ModelResponse(parts=[TextPart(_said(messages, info))])


async def stream(messages, info):
    yield _said(messages, info)


recorder = Agent(FunctionModel(answer, stream_function=stream, model_name='recorder'), name='recorder')
"""
"""A module whose agent `recorder` answers `You said: <the last user prompt>`."""


@contextmanager
def project(runtime: SynapseRuntime, files: dict[str, str]) -> Iterator[tuple[str, Any]]:
    """`files` (sources; `{package}` is replaced) written as a package of the project, the runtime's
    catalog scanning it; yields the package name and its `agents` module once imported."""
    root = Path.cwd()
    package = unique_name('evalproj')
    written = {path.format(package=package): text for path, text in files.items()}
    write_files(root, {f'{package}/__init__.py': '', **written})
    with isolated_imports(root):
        runtime.catalog = Catalog([package], root)
        runtime.catalog.scan()
        yield package, sys.modules.get(f'{package}.agents')


def run_to_end(runtime: SynapseRuntime, run_id: str) -> EvalRun:
    """Execute the queued run `run_id` here, the runtime started around it."""

    async def go() -> EvalRun:
        async with runtime.running():
            return await execute(runtime, run_id)

    return anyio.run(go)
