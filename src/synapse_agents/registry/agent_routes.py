"""The registry's HTTP API for what makes an agent: presets, tones, configured agents and versions.

Presets and agents may be sandboxes: their listings leave sandboxes out unless `?sandbox=only` or
`?sandbox=include` asks for them; a key always finds them. `POST /api/registry/sandbox/cleanup`
removes them. Included in `routes.router`.
"""

from __future__ import annotations

from fastapi import APIRouter

from ..web.errors import error_responses
from ..workflows import book as workflows_book
from . import agents_store, presets_store, tones_store
from .entry_routes import EntryRoutes, add_entry_routes
from .responses import (
    AgentVersion,
    AgentVersionList,
    ConfiguredAgent,
    ConfiguredAgentList,
    Preset,
    PresetList,
    SandboxCleanup,
    SandboxCounts,
    Tone,
    ToneList,
)
from .route_helpers import Context, KeyPath, call
from .schemas import AgentInput, AgentPatch, PresetInput, PresetPatch, ToneInput, TonePatch
from .tables import AgentConfig
from .tables import Preset as PresetRow
from .tables import Tone as ToneRow

router = APIRouter(tags=['registry'])

_IN_USE = error_responses(409)


for kind in (
    EntryRoutes(
        'preset',
        'presets',
        PresetRow,
        presets_store,
        Preset,
        PresetList,
        PresetInput,
        PresetPatch,
        {
            'list': 'Every preset by key (sandboxes as `sandbox` says).',
            'create': 'Add a preset: a model and its settings.',
            'read': 'One preset (a sandbox too).',
            'update': 'Change a preset (null clears an optional setting).',
            'delete': 'Remove a preset (refused while agents use it).',
        },
        sandboxes=True,
        delete_responses=_IN_USE,
    ),
    EntryRoutes(
        'tone',
        'tones',
        ToneRow,
        tones_store,
        Tone,
        ToneList,
        ToneInput,
        TonePatch,
        {
            'list': 'Every tone by key.',
            'create': 'Add a tone.',
            'read': 'One tone.',
            'update': 'Change a tone.',
            'delete': 'Remove a tone (refused while agents use it).',
        },
        delete_responses=_IN_USE,
    ),
    EntryRoutes(
        'agent',
        'agents',
        AgentConfig,
        agents_store,
        ConfiguredAgent,
        ConfiguredAgentList,
        AgentInput,
        AgentPatch,
        {
            'list': 'Every configured agent by key (sandboxes as `sandbox` says).',
            'create': 'Add a configured agent (version 1); its preset and tone must exist.',
            'read': 'One configured agent at its current version (a sandbox too).',
            'update': 'Change a configured agent: a change makes a new version (the old ones stay readable).',
            'delete': 'Remove a configured agent and its versions.',
        },
        sandboxes=True,
    ),
):
    add_entry_routes(router, kind)


@router.get('/api/registry/agents/{key}/versions', response_model=AgentVersionList)
async def agent_versions(key: KeyPath, context: Context) -> AgentVersionList:
    """Every version of a configured agent, oldest first, each with its definition."""
    rows = await call(agents_store.versions, context.store, key)
    return AgentVersionList(versions=[AgentVersion.of(row) for row in rows])


# -- sandbox ------------------------------------------------------------------------------


@router.post('/api/registry/sandbox/cleanup', response_model=SandboxCleanup)
async def cleanup_sandbox(context: Context) -> SandboxCleanup:
    """Remove every sandbox workflow (its runs first), every sandbox agent and every sandbox preset no
    other agent uses, in one transaction."""
    done = await call(agents_store.cleanup_sandbox, context.store, [workflows_book.cleanup_sandbox])
    return SandboxCleanup(
        deleted=SandboxCounts(
            agents=done.agents, presets=done.presets, workflows=done.others.get('workflows', 0)
        )
    )
