"""The model resolver: every model id (the playground's, a preset's, the Python API's) as a model.

A model id is, in this order:

1. `demo` or `demo-fast`: the offline demo model (`DemoModel`);
2. a registry model's key: its provider record (a registry provider's key) and its name there, or,
   when `provider_key` is not a registry provider, the pydantic-ai model string
   `<provider_key>:<name>`;
3. a pydantic-ai model string (`openai:gpt-5.6-sol`), built by pydantic-ai's own `infer_model`
   (a missing key is `MissingApiKey` naming the variable).

`resolve_model` is the one entry for a model id, whoever names it. A registry provider becomes the
pydantic-ai provider of its kind with its decrypted API key and `base_url`. (pydantic-ai's own hook,
`infer_model(..., provider_factory=...)`, cannot say this: it picks the model class from the
provider's name, where the registry picks it from the provider's kind.) With no key stored, the
provider's usual environment variable applies (except for `openai-compatible`, which never borrows
`OPENAI_API_KEY`: a local server gets no key). Reading the rows (`lookup`, `resolve_model`,
`model_for`) blocks: call it from a thread; `build` does no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic_ai.exceptions import UserError
from pydantic_ai.models import Model, infer_model
from pydantic_ai.settings import ModelSettings

from ..demo import DemoModel
from ..encryption import BadSecretKey, SecretBox
from ..store import Store
from ..targets.model_choice import DEMO_FAST_ID, DEMO_IDS, DEMO_PROVIDER, MissingApiKey, missing_env_for
from .read import by_key
from .tables import Provider, RegistryModel

KINDS = ('openai', 'anthropic', 'google', 'groq', 'mistral', 'openai-compatible')
"""The provider kinds the registry stores."""

NO_KEY = 'api-key-not-set'
"""The key an `openai-compatible` provider without a stored key sends (local servers need none)."""

_ENV_IN_MESSAGE = re.compile(r'`?([A-Z][A-Z0-9_]*_(?:API_KEY|TOKEN|KEY))`?')


class ModelUnavailable(ValueError):
    """A model id that names no model, or a model whose provider or record cannot be used."""


class ProviderKeyMissing(MissingApiKey):
    """A registry provider has no stored API key and its environment variable is not set either."""

    def __init__(self, model_id: str, provider_key: str, env_var: str) -> None:
        UserError.__init__(
            self,
            f'Store an API key for provider {provider_key!r} (or set {env_var}) to run {model_id}.',
        )
        self.model_id = model_id
        self.env_var = env_var
        self.provider_key = provider_key


@dataclass(frozen=True)
class ModelSource:
    """What a model id resolves to in the registry (rows detached from their session)."""

    model_id: str
    model: RegistryModel | None
    """The registry model, None for `demo` and pydantic-ai model strings."""
    provider: Provider | None
    """The registry provider serving it, None when its `provider_key` is a pydantic-ai provider."""

    @property
    def stamp(self) -> tuple[datetime | None, datetime | None]:
        """Changes when either row is edited (for caches of what was built from them)."""
        return (
            self.model.updated_at if self.model is not None else None,
            self.provider.updated_at if self.provider is not None else None,
        )

    @property
    def provider_name(self) -> str | None:
        """The provider as the agent card shows it: the registry provider's key, else the id's prefix."""
        if self.model is not None:
            return self.model.provider_key
        if self.model_id in DEMO_IDS:
            return DEMO_PROVIDER
        provider, sep, _ = self.model_id.partition(':')
        return provider if sep else None

    @property
    def model_name(self) -> str:
        """The model's name at its provider."""
        if self.model is not None:
            return self.model.name
        return self.model_id.partition(':')[2] or self.model_id


def lookup(store: Store, model_id: str) -> ModelSource:
    """The registry rows behind `model_id` (blocking). Never raises for an unknown id: `build` does."""
    if model_id in DEMO_IDS:
        return ModelSource(model_id, None, None)
    model = by_key(store, RegistryModel, model_id)
    if model is None:
        return ModelSource(model_id, None, None)
    return ModelSource(model_id, model, by_key(store, Provider, model.provider_key))


def build(source: ModelSource, box: SecretBox, *, settings: ModelSettings | None = None) -> Model:
    """The pydantic-ai model for resolved rows (no I/O); `ModelUnavailable` or `MissingApiKey`."""
    model = source.model
    if model is None:
        return _from_string(source.model_id)
    if not model.enabled:
        raise ModelUnavailable(f'Model {model.key!r} is disabled in the registry.')
    if source.provider is None:
        return _from_string(f'{model.provider_key}:{model.name}', shown=model.key)
    return provider_model(source.provider, box, model.name, settings=settings, model_id=model.key)


def build_model(
    store: Store, box: SecretBox, provider_key: str, model_name: str, *, settings: ModelSettings | None = None
) -> Model:
    """The model `model_name` of the stored provider `provider_key` (blocking: it reads the provider)."""
    provider = by_key(store, Provider, provider_key)
    if provider is None:
        raise ModelUnavailable(f'No provider with key {provider_key!r} in the registry.')
    return provider_model(provider, box, model_name, settings=settings)


def model_for(store: Store, box: SecretBox, model_id: str, *, settings: ModelSettings | None = None) -> Model:
    """The model for a model id (see the module docstring; blocking)."""
    return build(lookup(store, model_id), box, settings=settings)


def resolve_model(store: Store, secret_key: Any, model_id: str) -> Model:
    """The model for any model id, decrypting with the `secret_key` setting (blocking: reads rows).

    A `secret_key` that holds no valid key is an error only for a provider with a stored key."""
    source = lookup(store, model_id)
    try:
        box = SecretBox.from_setting(secret_key)
    except BadSecretKey:
        if source.provider is not None and source.provider.secret:
            raise
        box = SecretBox(())
    return build(source, box)


def provider_model(
    provider: Provider,
    box: SecretBox,
    model_name: str,
    *,
    settings: ModelSettings | None = None,
    model_id: str | None = None,
) -> Model:
    """The pydantic-ai model `model_name` served by a stored provider (no I/O)."""
    shown = model_id or f'{provider.key}:{model_name}'
    if not provider.enabled:
        raise ModelUnavailable(f'Provider {provider.key!r} is disabled in the registry.')
    if provider.kind not in KINDS:
        raise ModelUnavailable(
            f'Provider {provider.key!r} has kind {provider.kind!r}, which is not one of {", ".join(KINDS)}.'
        )
    if provider.kind == 'openai-compatible' and not provider.base_url:
        raise ModelUnavailable(f'Provider {provider.key!r} is openai-compatible and has no base_url.')
    key = box.decrypt(provider.secret) if provider.secret else None
    try:
        return _construct(provider.kind, model_name, key, provider.base_url or None, settings)
    except UserError as exc:
        found = _ENV_IN_MESSAGE.search(str(exc))
        if found and key is None:
            raise ProviderKeyMissing(shown, provider.key, found.group(1)) from exc
        raise ModelUnavailable(f'Provider {provider.key!r} cannot serve {model_name!r}: {exc}') from exc
    except ImportError as exc:
        raise ModelUnavailable(
            f'Provider {provider.key!r} ({provider.kind}) needs a package that is not installed: {exc}.'
        ) from exc


def _construct(
    kind: str, name: str, key: str | None, base_url: str | None, settings: ModelSettings | None
) -> Model:
    if kind in ('openai', 'openai-compatible'):
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        if kind == 'openai-compatible' and key is None:
            key = NO_KEY
        return OpenAIChatModel(
            name, provider=OpenAIProvider(base_url=base_url, api_key=key), settings=settings
        )
    options: dict[str, Any] = {'api_key': key, 'base_url': base_url}
    if kind == 'anthropic':
        from pydantic_ai.models.anthropic import AnthropicModel
        from pydantic_ai.providers.anthropic import AnthropicProvider

        return AnthropicModel(name, provider=AnthropicProvider(**options), settings=settings)
    if kind == 'google':
        from pydantic_ai.models.google import GoogleModel
        from pydantic_ai.providers.google import GoogleProvider

        return GoogleModel(name, provider=GoogleProvider(**options), settings=settings)
    if kind == 'groq':
        from pydantic_ai.models.groq import GroqModel
        from pydantic_ai.providers.groq import GroqProvider

        return GroqModel(name, provider=GroqProvider(**options), settings=settings)
    from pydantic_ai.models.mistral import MistralModel
    from pydantic_ai.providers.mistral import MistralProvider

    return MistralModel(name, provider=MistralProvider(**options), settings=settings)


def model_from_string(model_id: str) -> Model:
    """The demo model for a demo id, else what pydantic-ai's `infer_model` builds (no I/O); a
    missing key raises `MissingApiKey` naming the variable."""
    if model_id in DEMO_IDS:
        if model_id == DEMO_FAST_ID:
            return DemoModel(model_name=f'{DemoModel().model_name}-fast', chunk_delay=0.005)
        return DemoModel()
    missing = missing_env_for(model_id)
    if missing is not None:
        raise MissingApiKey(model_id, missing)
    try:
        return infer_model(model_id)
    except UserError as exc:
        found = _ENV_IN_MESSAGE.search(str(exc))
        if found:
            raise MissingApiKey(model_id, found.group(1)) from exc
        raise


def _from_string(model_id: str, *, shown: str | None = None) -> Model:
    """A demo id or a pydantic-ai model string; `ModelUnavailable` when pydantic-ai knows neither."""
    try:
        return model_from_string(model_id)
    except MissingApiKey:
        raise
    except UserError as exc:
        if str(exc).startswith('Unknown model'):
            raise ModelUnavailable(
                f'Unknown model {shown or model_id!r}: it is neither a registry model nor a pydantic-ai '
                "model id ('provider:name', e.g. 'openai:gpt-5.6-sol', or 'demo')."
            ) from exc
        raise ModelUnavailable(f'Model {shown or model_id!r} cannot be built: {exc}') from exc
