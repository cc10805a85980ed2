"""The registry's HTTP API: `/api/registry/...` for providers, models and prices, and settings.

Presets, tones, configured agents and the sandbox cleanup are in `agent_routes.py`, the tool
registry in `tool_routes.py`; `router` includes both, so they are registered together. The
services do the work in a thread; their refusals (`RegistryError`) become the API's JSON errors
with the same status and words.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path

from ..accounting.rates import rate_warning
from ..encryption import HOW_TO_SET, BadSecretKey, SecretBox
from ..secret_key_file import PRODUCTION, make_key
from ..web.context import SynapseContext
from ..web.errors import ApiError, error_responses
from . import models_store, probe, providers_store, read, settings_store
from .agent_routes import router as agent_router
from .errors import RegistryError
from .responses import (
    Provider,
    ProviderList,
    ProviderTestResult,
    RegistryDeleted,
    RegistryModel,
    RegistryModelList,
    RegistrySetting,
    RegistrySettingList,
)
from .route_helpers import Context, KeyPath, api_error, call, found
from .schemas import (
    MODEL_KEY_PATTERN,
    ModelInput,
    ModelPatch,
    PriceInput,
    ProviderInput,
    ProviderPatch,
    ProviderTestInput,
    SettingInput,
)
from .tables import Provider as ProviderRow
from .tables import RegistryModel as ModelRow
from .tool_routes import router as tool_router

router = APIRouter(tags=['registry'])

ModelKeyPath = Annotated[
    str, Path(max_length=255, pattern=MODEL_KEY_PATTERN, description="The model's key (`provider:name`).")
]
SettingName = Annotated[
    Literal['retention_days', 'language', 'chunk_size', 'chunk_overlap', 'vector_store'],
    Path(description='A registry-managed setting.'),
]


def secret_box(context: SynapseContext, needed: bool) -> SecretBox:
    """The box of the `secret_key` setting; a malformed setting is refused only when a secret is stored.

    Without a configured key, storing a secret makes one in `SYNAPSE_HOME` (`secret_key_file`),
    except in production, where that is refused.
    """
    settings = context.settings
    if needed and settings.secret_key is None:
        if settings.env == PRODUCTION:
            message = (
                f'an API key cannot be stored: no secret_key is set, and in production Synapse does not '
                f'make one. {HOW_TO_SET}'
            )
            fields = [{'location': 'body.api_key', 'message': message}]
            raise ApiError(422, f'api_key: {message}', code='no_secret_key', fields=fields)
        settings.secret_key = make_key(settings.home)
    try:
        return SecretBox.from_setting(context.settings.secret_key)
    except BadSecretKey as exc:
        if not needed:
            return SecretBox(())
        raise ApiError(422, f'api_key: cannot be stored: {exc}', code='bad_secret_key') from None


# -- providers ----------------------------------------------------------------------------


@router.get('/api/registry/providers', response_model=ProviderList)
async def providers(context: Context) -> ProviderList:
    """Every provider, by key (secrets are never shown: `secret_set` and `secret_last4` only)."""
    rows = await call(read.listing, context.store, ProviderRow)
    return ProviderList(providers=[Provider.of(row) for row in rows])


@router.post(
    '/api/registry/providers', response_model=Provider, status_code=201, responses=error_responses(409)
)
async def create_provider(body: ProviderInput, context: Context) -> Provider:
    """Add a provider; its `api_key` is stored encrypted (a `secret_key` must be set)."""
    box = secret_box(context, body.api_key is not None)
    return Provider.of(await call(providers_store.create, context.store, box, body))


@router.get('/api/registry/providers/{key}', response_model=Provider)
async def provider(key: KeyPath, context: Context) -> Provider:
    """One provider."""
    return Provider.of(await found(context, ProviderRow, key))


@router.patch('/api/registry/providers/{key}', response_model=Provider)
async def update_provider(key: KeyPath, body: ProviderPatch, context: Context) -> Provider:
    """Change a provider. `api_key`: left out keeps it, null removes it, a string replaces it."""
    box = secret_box(context, body.api_key is not None)
    return Provider.of(await call(providers_store.update, context.store, box, key, body))


@router.delete(
    '/api/registry/providers/{key}', response_model=RegistryDeleted, responses=error_responses(409)
)
async def delete_provider(key: KeyPath, context: Context) -> RegistryDeleted:
    """Remove a provider (refused while models name it)."""
    await call(providers_store.delete, context.store, key)
    return RegistryDeleted(deleted=key)


@router.post('/api/registry/providers/{key}/test', response_model=ProviderTestResult)
async def try_provider(key: KeyPath, body: ProviderTestInput, context: Context) -> ProviderTestResult:
    """One tiny real request through the provider ("Say OK", 5 tokens at most); its error verbatim."""
    try:
        box = SecretBox.from_setting(context.settings.secret_key)
    except BadSecretKey as exc:
        raise ApiError(422, str(exc), code='bad_secret_key') from None
    try:
        return await probe.say_ok(context.store, box, key, body.model)
    except RegistryError as exc:
        raise api_error(exc) from None


# -- models -------------------------------------------------------------------------------


@router.get('/api/registry/models', response_model=RegistryModelList)
async def models(context: Context) -> RegistryModelList:
    """Every model, by key, each with the price in force and all its prices."""
    rows = await call(read.listing, context.store, ModelRow)
    return RegistryModelList(models=await call(models_store.answers, context.store, rows))


@router.post(
    '/api/registry/models', response_model=RegistryModel, status_code=201, responses=error_responses(409)
)
async def create_model(body: ModelInput, context: Context) -> RegistryModel:
    """Add a model (its key defaults to `provider_key:name`), with the prices given; `warning` says
    when one is in a currency with no exchange rate."""
    row = await call(models_store.create, context.store, body)
    answer = await call(models_store.answer, context.store, row.key)
    answer.warning = rate_warning([price.currency for price in body.prices], context.settings)
    return answer


@router.get('/api/registry/models/{key}', response_model=RegistryModel)
async def model(key: ModelKeyPath, context: Context) -> RegistryModel:
    """One model with its prices."""
    return await call(models_store.answer, context.store, key)


@router.patch('/api/registry/models/{key}', response_model=RegistryModel)
async def update_model(key: ModelKeyPath, body: ModelPatch, context: Context) -> RegistryModel:
    """Change a model (prices are added with `POST .../prices`)."""
    await call(models_store.update, context.store, key, body)
    return await call(models_store.answer, context.store, key)


@router.delete('/api/registry/models/{key}', response_model=RegistryDeleted, responses=error_responses(409))
async def delete_model(key: ModelKeyPath, context: Context) -> RegistryDeleted:
    """Remove a model and its prices (refused while presets name it)."""
    await call(models_store.delete, context.store, key)
    return RegistryDeleted(deleted=key)


@router.post(
    '/api/registry/models/{key}/prices',
    response_model=RegistryModel,
    status_code=201,
    responses=error_responses(409),
)
async def add_price(key: ModelKeyPath, body: PriceInput, context: Context) -> RegistryModel:
    """Add a price from `valid_from` on (now when left out); the model with its prices, and a
    `warning` when the price's currency has no exchange rate."""
    await call(models_store.add_price, context.store, key, body)
    answer = await call(models_store.answer, context.store, key)
    answer.warning = rate_warning([body.currency], context.settings)
    return answer


# -- settings -----------------------------------------------------------------------------


@router.get('/api/registry/settings', response_model=RegistrySettingList)
async def settings(context: Context) -> RegistrySettingList:
    """The registry-managed settings: the value in effect, its source, the stored value."""
    return RegistrySettingList(settings=await call(settings_store.listing, context.store, context.loaded))


@router.put('/api/registry/settings/{name}', response_model=RegistrySetting)
async def put_setting(name: SettingName, body: SettingInput, context: Context) -> RegistrySetting:
    """Store a value (validated as the setting's type); it overrides the file and the environment."""
    return await call(settings_store.put, context.store, context.loaded, name, body.value)


@router.delete('/api/registry/settings/{name}', response_model=RegistrySetting)
async def delete_setting(name: SettingName, context: Context) -> RegistrySetting:
    """Remove the stored value: the file, environment or default applies again."""
    return await call(settings_store.delete, context.store, context.loaded, name)


router.include_router(agent_router)
router.include_router(tool_router)
