"""The registry's HTTP API for what makes an agent: presets, tones, configured agents and versions.

Presets and agents may be sandboxes: their listings leave sandboxes out unless `?sandbox=only` or
`?sandbox=include` asks for them; a key always finds them. `POST /api/registry/sandbox/cleanup`
removes them. Included in `routes.router`.
"""

from __future__ import annotations

from fastapi import APIRouter

from ..web.errors import error_responses
from . import agents_store, presets_store, read, tones_store
from .responses import (
    AgentVersion,
    AgentVersionList,
    ConfiguredAgent,
    ConfiguredAgentList,
    Preset,
    PresetList,
    RegistryDeleted,
    SandboxCleanup,
    SandboxCounts,
    Tone,
    ToneList,
)
from .route_helpers import Context, KeyPath, SandboxQuery, call, found
from .schemas import AgentInput, AgentPatch, PresetInput, PresetPatch, ToneInput, TonePatch
from .tables import AgentConfig
from .tables import Preset as PresetRow
from .tables import Tone as ToneRow

router = APIRouter(tags=['registry'])

_IN_USE = error_responses(409)


# -- presets ------------------------------------------------------------------------------


@router.get('/api/registry/presets', response_model=PresetList)
async def presets(context: Context, sandbox: SandboxQuery = 'exclude') -> PresetList:
    """Every preset by key (sandboxes as `sandbox` says)."""
    rows = await call(read.listing, context.store, PresetRow, sandbox=sandbox)
    return PresetList(presets=[Preset.of(row) for row in rows])


@router.post('/api/registry/presets', response_model=Preset, status_code=201, responses=_IN_USE)
async def create_preset(body: PresetInput, context: Context) -> Preset:
    """Add a preset: a model and its settings."""
    return Preset.of(await call(presets_store.create, context.store, body))


@router.get('/api/registry/presets/{key}', response_model=Preset)
async def preset(key: KeyPath, context: Context) -> Preset:
    """One preset (a sandbox too)."""
    return Preset.of(await found(context, PresetRow, key))


@router.patch('/api/registry/presets/{key}', response_model=Preset)
async def update_preset(key: KeyPath, body: PresetPatch, context: Context) -> Preset:
    """Change a preset (null clears an optional setting)."""
    return Preset.of(await call(presets_store.update, context.store, key, body))


@router.delete('/api/registry/presets/{key}', response_model=RegistryDeleted, responses=_IN_USE)
async def delete_preset(key: KeyPath, context: Context) -> RegistryDeleted:
    """Remove a preset (refused while agents use it)."""
    await call(presets_store.delete, context.store, key)
    return RegistryDeleted(deleted=key)


# -- tones --------------------------------------------------------------------------------


@router.get('/api/registry/tones', response_model=ToneList)
async def tones(context: Context) -> ToneList:
    """Every tone by key."""
    rows = await call(read.listing, context.store, ToneRow)
    return ToneList(tones=[Tone.of(row) for row in rows])


@router.post('/api/registry/tones', response_model=Tone, status_code=201, responses=_IN_USE)
async def create_tone(body: ToneInput, context: Context) -> Tone:
    """Add a tone."""
    return Tone.of(await call(tones_store.create, context.store, body))


@router.get('/api/registry/tones/{key}', response_model=Tone)
async def tone(key: KeyPath, context: Context) -> Tone:
    """One tone."""
    return Tone.of(await found(context, ToneRow, key))


@router.patch('/api/registry/tones/{key}', response_model=Tone)
async def update_tone(key: KeyPath, body: TonePatch, context: Context) -> Tone:
    """Change a tone."""
    return Tone.of(await call(tones_store.update, context.store, key, body))


@router.delete('/api/registry/tones/{key}', response_model=RegistryDeleted, responses=_IN_USE)
async def delete_tone(key: KeyPath, context: Context) -> RegistryDeleted:
    """Remove a tone (refused while agents use it)."""
    await call(tones_store.delete, context.store, key)
    return RegistryDeleted(deleted=key)


# -- configured agents --------------------------------------------------------------------


@router.get('/api/registry/agents', response_model=ConfiguredAgentList)
async def agents(context: Context, sandbox: SandboxQuery = 'exclude') -> ConfiguredAgentList:
    """Every configured agent by key (sandboxes as `sandbox` says)."""
    rows = await call(read.listing, context.store, AgentConfig, sandbox=sandbox)
    return ConfiguredAgentList(agents=[ConfiguredAgent.of(row) for row in rows])


@router.post('/api/registry/agents', response_model=ConfiguredAgent, status_code=201, responses=_IN_USE)
async def create_agent(body: AgentInput, context: Context) -> ConfiguredAgent:
    """Add a configured agent (version 1); its preset and tone must exist."""
    return ConfiguredAgent.of(await call(agents_store.create, context.store, body))


@router.get('/api/registry/agents/{key}', response_model=ConfiguredAgent)
async def agent(key: KeyPath, context: Context) -> ConfiguredAgent:
    """One configured agent at its current version (a sandbox too)."""
    return ConfiguredAgent.of(await found(context, AgentConfig, key))


@router.patch('/api/registry/agents/{key}', response_model=ConfiguredAgent)
async def update_agent(key: KeyPath, body: AgentPatch, context: Context) -> ConfiguredAgent:
    """Change a configured agent: a change makes a new version (the old ones stay readable)."""
    return ConfiguredAgent.of(await call(agents_store.update, context.store, key, body))


@router.delete('/api/registry/agents/{key}', response_model=RegistryDeleted)
async def delete_agent(key: KeyPath, context: Context) -> RegistryDeleted:
    """Remove a configured agent and its versions."""
    await call(agents_store.delete, context.store, key)
    return RegistryDeleted(deleted=key)


@router.get('/api/registry/agents/{key}/versions', response_model=AgentVersionList)
async def agent_versions(key: KeyPath, context: Context) -> AgentVersionList:
    """Every version of a configured agent, oldest first, each with its definition."""
    rows = await call(agents_store.versions, context.store, key)
    return AgentVersionList(versions=[AgentVersion.of(row) for row in rows])


# -- sandbox ------------------------------------------------------------------------------


@router.post('/api/registry/sandbox/cleanup', response_model=SandboxCleanup)
async def cleanup_sandbox(context: Context) -> SandboxCleanup:
    """Remove every sandbox agent and every sandbox preset no other agent uses."""
    done = await call(agents_store.cleanup_sandbox, context.store)
    return SandboxCleanup(deleted=SandboxCounts(agents=done.agents, presets=done.presets))
