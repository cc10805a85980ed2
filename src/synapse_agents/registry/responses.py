"""What the registry answers: one output model per kind, built from its row (`of`).

A provider's answer says whether a secret is set and its last four characters, never the secret.
Prices are decimal strings (exact; `"2.5"`), timestamps ISO 8601 in UTC with milliseconds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer

from . import tables

CONFIG_PREFIX = 'config:'
"""A configured agent's slug is this prefix and its key."""


def iso(value: datetime) -> str:
    """ISO 8601 in UTC with milliseconds: `2026-11-30T06:11:50.884Z`."""
    moment = value.astimezone(UTC)
    # Not strftime: its %Y prints year 1 as `1`, not `0001`.
    return (
        f'{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d}:'
        f'{moment.second:02d}.{moment.microsecond // 1000:03d}Z'
    )


def decimal_text(value: Decimal) -> str:
    """An amount as plain decimal text without trailing zeros: `2.5`, `3`, `0.0000001`."""
    text = format(value.normalize(), 'f')
    return text if text != '-0' else '0'


Timestamp = Annotated[
    datetime,
    PlainSerializer(iso, return_type=str),
    Field(description='ISO 8601 in UTC with milliseconds: 2026-11-30T06:11:50.884Z.'),
]
DecimalText = Annotated[
    Decimal,
    PlainSerializer(decimal_text, return_type=str),
    Field(description='A decimal amount as a string, e.g. "2.5".'),
]


class Provider(BaseModel):
    """A provider as the API shows it (never its secret)."""

    key: str
    kind: str
    name: str
    base_url: str | None
    secret_set: bool = Field(description='Whether an API key is stored.')
    secret_last4: str | None = Field(description="The stored key's last four characters.")
    options: dict[str, Any]
    enabled: bool
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, row: tables.Provider) -> Provider:
        return cls(
            key=row.key,
            kind=row.kind,
            name=row.name,
            base_url=row.base_url,
            secret_set=row.secret is not None,
            secret_last4=row.secret_last4 or None if row.secret is not None else None,
            options=row.options or {},
            enabled=row.enabled,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


class Price(BaseModel):
    """A model's price per million tokens from `valid_from` on."""

    input_per_mtok: DecimalText
    output_per_mtok: DecimalText
    cache_read_per_mtok: DecimalText | None
    cache_write_per_mtok: DecimalText | None
    currency: str
    valid_from: Timestamp

    @classmethod
    def of(cls, row: tables.ModelPrice) -> Price:
        return cls(
            input_per_mtok=row.input_per_mtok,
            output_per_mtok=row.output_per_mtok,
            cache_read_per_mtok=row.cache_read_per_mtok,
            cache_write_per_mtok=row.cache_write_per_mtok,
            currency=row.currency,
            valid_from=row.valid_from,
        )


class RegistryModel(BaseModel):
    """A model, with the price in force and every price it had."""

    key: str
    provider_key: str
    name: str
    label: str
    context_window: int | None
    max_output_tokens: int | None
    meta: dict[str, Any]
    enabled: bool
    price: Price | None = Field(description='The price in force now (None: none has started yet).')
    prices: list[Price] = Field(description='Every price, oldest first.')
    created_at: Timestamp
    updated_at: Timestamp
    warning: str | None = Field(
        None,
        description='Set in the answer of a request that stored a price in a currency with no exchange '
        'rate to the reference currency: what the ledger does with the calls priced with it.',
    )

    @classmethod
    def of(cls, row: tables.RegistryModel, prices: list[tables.ModelPrice], now: datetime) -> RegistryModel:
        started = [price for price in prices if price.valid_from <= now]
        return cls(
            key=row.key,
            provider_key=row.provider_key,
            name=row.name,
            label=row.label,
            context_window=row.context_window,
            max_output_tokens=row.max_output_tokens,
            meta=row.meta or {},
            enabled=row.enabled,
            price=Price.of(started[-1]) if started else None,
            prices=[Price.of(price) for price in prices],
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


class Preset(BaseModel):
    """A preset: a model and its settings."""

    key: str
    name: str
    model: str
    temperature: float | None
    max_tokens: int | None
    top_p: float | None
    streaming: bool
    timeout_s: float | None
    provider_options: dict[str, Any]
    is_sandbox: bool
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, row: tables.Preset) -> Preset:
        return cls(
            key=row.key,
            name=row.name,
            model=row.model,
            temperature=row.temperature,
            max_tokens=row.max_tokens,
            top_p=row.top_p,
            streaming=row.streaming,
            timeout_s=row.timeout_s,
            provider_options=row.provider_options or {},
            is_sandbox=row.is_sandbox,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


class Tone(BaseModel):
    """A tone: a name, an emoji and its instructions."""

    key: str
    name: str
    emoji: str
    instructions: str
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, row: tables.Tone) -> Tone:
        return cls(
            key=row.key,
            name=row.name,
            emoji=row.emoji,
            instructions=row.instructions,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


class AgentAccess(BaseModel):
    """Who may use an agent (empty lists: anyone)."""

    tenants: list[str]
    actors: list[str]


class ConfiguredAgent(BaseModel):
    """A configured agent, at its current version."""

    key: str
    slug: str = Field(description='`config:<key>`: how chats and the Python API name it.')
    name: str
    description: str
    instructions: str
    preset_key: str | None
    tone_key: str | None
    tools: list[str]
    rag_sources: list[Any]
    access: AgentAccess
    spec: dict[str, Any]
    version: int
    is_sandbox: bool
    enabled: bool
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, row: tables.AgentConfig) -> ConfiguredAgent:
        access = row.access or {}
        return cls(
            key=row.key,
            slug=CONFIG_PREFIX + row.key,
            name=row.name,
            description=row.description,
            instructions=row.instructions,
            preset_key=row.preset_key,
            tone_key=row.tone_key,
            tools=[str(tool) for tool in row.tools or []],
            rag_sources=list(row.rag_sources or []),
            access=AgentAccess(
                tenants=list(access.get('tenants', [])), actors=list(access.get('actors', []))
            ),
            spec=row.spec or {},
            version=row.version,
            is_sandbox=row.is_sandbox,
            enabled=row.enabled,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


class AgentVersion(BaseModel):
    """One version of a configured agent as it was."""

    version: int
    definition: dict[str, Any]
    created_at: Timestamp

    @classmethod
    def of(cls, row: tables.AgentConfigVersion) -> AgentVersion:
        return cls(version=row.version, definition=row.definition, created_at=row.created_at)


SettingSource = Literal['registry', 'pyproject', 'env', 'dotenv', 'cli', 'default']


class RegistrySetting(BaseModel):
    """A registry-managed setting: the value in effect, where it came from, the stored value."""

    name: str
    value: Any = Field(description='The value in effect.')
    source: SettingSource = Field(description='`registry` when the stored value is the one in effect.')
    stored: Any = Field(description='The value stored in the registry (None: none is stored).')
    help: str


class ProviderList(BaseModel):
    providers: list[Provider]


class RegistryModelList(BaseModel):
    models: list[RegistryModel]


class PresetList(BaseModel):
    presets: list[Preset]


class ToneList(BaseModel):
    tones: list[Tone]


class ConfiguredAgentList(BaseModel):
    agents: list[ConfiguredAgent]


class AgentVersionList(BaseModel):
    versions: list[AgentVersion] = Field(description='Oldest first.')


class RegistrySettingList(BaseModel):
    settings: list[RegistrySetting]


class SandboxCounts(BaseModel):
    agents: int
    presets: int
    workflows: int
    """Sandbox workflows removed (their runs went first)."""


class SandboxCleanup(BaseModel):
    """What a sandbox cleanup removed."""

    deleted: SandboxCounts


class ProviderTestError(BaseModel):
    """Why the test request failed: the exception's class and the provider's own words."""

    model_config = ConfigDict(populate_by_name=True)

    class_: str = Field(alias='class')
    message: str


class ProviderTestResult(BaseModel):
    """The answer to one tiny real request through a provider."""

    ok: bool
    model: str
    duration_ms: int
    error: ProviderTestError | None


class RegistryDeleted(BaseModel):
    """The key of what was deleted."""

    deleted: str
