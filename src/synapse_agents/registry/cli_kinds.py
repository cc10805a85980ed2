"""What `synapse registry` does for each kind: its list columns and its service calls.

Entries are shown as the HTTP API answers them (`responses`), so the CLI and the API agree on every
field, and a provider's secret is never printed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..accounting.rates import rate_warning
from . import agents_store, models_store, presets_store, providers_store, read, settings_store, tones_store
from .entries import not_found, parse
from .errors import Invalid, NotFound
from .responses import ConfiguredAgent, Preset, Provider, Tone
from .schemas import ModelInput
from .tables import AgentConfig, RegistryModel
from .tables import Preset as PresetRow
from .tables import Provider as ProviderRow
from .tables import Tone as ToneRow

if TYPE_CHECKING:
    from ..runtime.assembled import SynapseRuntime

Entry = dict[str, Any]


def _dump(model: Any) -> Entry:
    data: Entry = model.model_dump(mode='json', by_alias=True)
    return data


@dataclass(frozen=True)
class Kind:
    """A kind kept by key: its table, its API answer, its service module, its list columns."""

    table: Any
    answer: Any
    service: Any
    columns: tuple[str, ...]

    def rows(self, runtime: SynapseRuntime, sandbox: read.Sandbox) -> list[Entry]:
        return [_dump(self.answer(row)) for row in read.listing(runtime.store, self.table, sandbox=sandbox)]

    def one(self, runtime: SynapseRuntime, key: str) -> Entry:
        row = read.by_key(runtime.store, self.table, key)
        if row is None:
            raise not_found(self.table, key)
        return _dump(self.answer(row))

    def add(self, runtime: SynapseRuntime, data: Entry) -> str:
        key: str = self.service.create(runtime.store, data).key
        return key

    def edit(self, runtime: SynapseRuntime, key: str, data: Entry) -> None:
        self.service.update(runtime.store, key, data)

    def warning(self, runtime: SynapseRuntime, data: Entry) -> str | None:
        """What to warn of once `data` is added (None: nothing)."""
        return None

    def remove(self, runtime: SynapseRuntime, key: str) -> None:
        self.service.delete(runtime.store, key)


class Providers(Kind):
    """Providers: their API keys go through the secret box."""

    def add(self, runtime: SynapseRuntime, data: Entry) -> str:
        return providers_store.create(runtime.store, box(runtime), data).key

    def edit(self, runtime: SynapseRuntime, key: str, data: Entry) -> None:
        providers_store.update(runtime.store, box(runtime), key, data)


class Models(Kind):
    """Models: shown with their prices, the one in force in the list."""

    def rows(self, runtime: SynapseRuntime, sandbox: read.Sandbox) -> list[Entry]:
        listed = models_store.answers(runtime.store, read.listing(runtime.store, RegistryModel))
        rows = [_dump(answer) for answer in listed]
        for row in rows:
            price = row['price']
            row['price'] = f'{price["input_per_mtok"]} / {price["output_per_mtok"]}' if price else None
        return rows

    def one(self, runtime: SynapseRuntime, key: str) -> Entry:
        return _dump(models_store.answer(runtime.store, key))

    def warning(self, runtime: SynapseRuntime, data: Entry) -> str | None:
        """A price in a currency with no exchange rate: what the ledger does with its calls."""
        prices = parse(ModelInput, data).prices
        return rate_warning([price.currency for price in prices], runtime.settings)


class Settings(Kind):
    """The registry-managed settings, by name; `edit` stores a value, `remove` drops it."""

    def rows(self, runtime: SynapseRuntime, sandbox: read.Sandbox) -> list[Entry]:
        return [_dump(setting) for setting in settings_store.listing(runtime.store, runtime.loaded)]

    def one(self, runtime: SynapseRuntime, key: str) -> Entry:
        for row in self.rows(runtime, 'include'):
            if row['name'] == key:
                return row
        managed = ', '.join(settings_store.MANAGED)
        raise NotFound(f'No registry setting {key!r} (the registry manages {managed}).')

    def add(self, runtime: SynapseRuntime, data: Entry) -> str:
        raise Invalid("settings are not added: store a value with 'synapse registry edit settings NAME FILE'")

    def edit(self, runtime: SynapseRuntime, key: str, data: Entry) -> None:
        if set(data) != {'value'}:
            raise Invalid("a setting's file holds one field, value (for example `value: 7`)")
        settings_store.put(runtime.store, runtime.loaded, key, data['value'])

    def remove(self, runtime: SynapseRuntime, key: str) -> None:
        settings_store.delete(runtime.store, runtime.loaded, key)


def box(runtime: SynapseRuntime) -> Any:
    """The secret box of the `secret_key` setting."""
    from ..encryption import SecretBox

    return SecretBox.from_setting(runtime.settings.secret_key)


KINDS: dict[str, Kind] = {
    'providers': Providers(
        ProviderRow,
        Provider.of,
        providers_store,
        ('key', 'kind', 'name', 'base_url', 'secret_last4', 'enabled'),
    ),
    'models': Models(
        RegistryModel, None, models_store, ('key', 'provider_key', 'name', 'label', 'price', 'enabled')
    ),
    'presets': Kind(
        PresetRow,
        Preset.of,
        presets_store,
        ('key', 'name', 'model', 'temperature', 'max_tokens', 'is_sandbox'),
    ),
    'tones': Kind(ToneRow, Tone.of, tones_store, ('key', 'emoji', 'name', 'instructions')),
    'agents': Kind(
        AgentConfig,
        ConfiguredAgent.of,
        agents_store,
        ('key', 'name', 'preset_key', 'tone_key', 'version', 'is_sandbox', 'enabled'),
    ),
    'settings': Settings(None, None, settings_store, ('name', 'value', 'source', 'stored')),
}
"""What the commands do, by kind."""
