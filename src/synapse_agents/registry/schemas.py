"""What the registry accepts: one validated input model per kind, and its PATCH twin.

Inputs forbid unknown fields, so a misspelt field is a 422 naming it rather than a silent no-op.
The field types (and what each refuses) are in `fields.py`; the answers the API gives are in
`responses.py`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from .fields import (
    KEY_PATTERN as KEY_PATTERN,
)
from .fields import (
    MODEL_KEY_PATTERN as MODEL_KEY_PATTERN,
)
from .fields import (
    PROVIDER_KINDS as PROVIDER_KINDS,
)
from .fields import (
    Amount,
    Count,
    Emoji,
    Flag,
    JsonObject,
    JsonValue,
    Key,
    LongText,
    ModelKey,
    ProviderKind,
    Scope,
    Secret,
    Temperature,
    Text,
    Timeout,
    ToolRef,
    TopP,
    Url,
    Word,
    refused,
    secret_text,
    utc,
)


class Input(BaseModel):
    """An input: unknown fields are refused."""

    model_config = ConfigDict(extra='forbid')


def _drop_null(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """The schema of a PATCH body: the fields that may not be null are documented without null."""
    for name in getattr(model, 'not_null', ()):
        field = schema.get('properties', {}).get(name)
        if field is None or 'anyOf' not in field:
            continue
        kept = [option for option in field.pop('anyOf') if option.get('type') != 'null']
        field.pop('default', None)
        if len(kept) == 1:
            field.update(kept[0])
        else:
            field['anyOf'] = kept


class Patch(Input):
    """A PATCH body: a field left out keeps its value; null clears only the fields that may be empty."""

    model_config = ConfigDict(extra='forbid', json_schema_extra=_drop_null)

    not_null: ClassVar[tuple[str, ...]] = ()
    """The fields a null is refused for (they cannot be empty)."""

    @field_validator('*')
    @classmethod
    def _refuse_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name in cls.not_null:
            raise refused('may not be null (leave the field out to keep its value)')
        return value

    def changes(self) -> dict[str, Any]:
        """The fields given, as plain data (the secret stays a `SecretStr`)."""
        given = self.model_dump(exclude_unset=True, exclude={'key'})
        for name in self.model_fields_set & {'api_key'}:
            given[name] = getattr(self, name)
        return given


class ProviderInput(Input):
    """A provider to create; `api_key` is stored encrypted and never shown again."""

    key: Key
    kind: ProviderKind
    name: Text = ''
    base_url: Url | None = Field(None, description='Required for `openai-compatible`.', validate_default=True)
    api_key: Secret | None = None
    options: JsonObject = Field(default_factory=dict)
    enabled: Flag = True

    _secret = field_validator('api_key')(secret_text)

    @field_validator('base_url')
    @classmethod
    def _compatible_needs_url(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None and info.data.get('kind') == 'openai-compatible':
            raise refused('an openai-compatible provider needs a base_url')
        return value


class ProviderPatch(Patch):
    """Changes to a provider. `api_key`: absent keeps it, null removes it, a string replaces it."""

    not_null = ('key', 'kind', 'name', 'options', 'enabled')

    key: Key | None = Field(None, description='Must be the key in the path (a key cannot change).')
    kind: ProviderKind | None = None
    name: Text | None = None
    base_url: Url | None = None
    api_key: Secret | None = None
    options: JsonObject | None = None
    enabled: Flag | None = None

    _secret = field_validator('api_key')(secret_text)


class ProviderTestInput(Input):
    """Which model to ask."""

    model: Word = Field(description="The model's name at the provider, e.g. `gpt-5-mini`.")


class PriceInput(Input):
    """A price per million tokens, in force from `valid_from` (now when left out)."""

    input_per_mtok: Amount
    output_per_mtok: Amount
    cache_read_per_mtok: Amount | None = None
    cache_write_per_mtok: Amount | None = None
    currency: str = Field('USD', pattern=r'^[A-Z]{3}$', description='An ISO 4217 code.')
    valid_from: datetime | None = Field(None, description='ISO 8601; UTC when it names no offset.')

    _valid_from = field_validator('valid_from')(utc)


class ModelInput(Input):
    """A model to create; `key` defaults to `provider_key:name`."""

    key: ModelKey | None = None
    provider_key: Key = Field(description="A registry provider's key or a pydantic-ai provider name.")
    name: Word = Field(description="The model's name at its provider.")
    label: Text = ''
    context_window: Count | None = None
    max_output_tokens: Count | None = None
    meta: JsonObject = Field(default_factory=dict)
    enabled: Flag = True
    prices: list[PriceInput] = Field(default_factory=list, max_length=100)


class ModelPatch(Patch):
    """Changes to a model (prices are added with `POST .../prices`)."""

    not_null = ('key', 'provider_key', 'name', 'label', 'meta', 'enabled')

    key: ModelKey | None = Field(None, description='Must be the key in the path (a key cannot change).')
    provider_key: Key | None = None
    name: Word | None = None
    label: Text | None = None
    context_window: Count | None = None
    max_output_tokens: Count | None = None
    meta: JsonObject | None = None
    enabled: Flag | None = None


class PresetInput(Input):
    """A preset to create: a model and its settings."""

    key: Key
    name: Text = ''
    model: Word = Field(description='A registry model key or a pydantic-ai model string (`openai:gpt-5`).')
    temperature: Temperature | None = None
    max_tokens: Count | None = None
    top_p: TopP | None = None
    streaming: Flag = True
    timeout_s: Timeout | None = None
    provider_options: JsonObject = Field(default_factory=dict)
    is_sandbox: Flag = False


class PresetPatch(Patch):
    """Changes to a preset (null clears an optional setting)."""

    not_null = ('key', 'name', 'model', 'streaming', 'provider_options', 'is_sandbox')

    key: Key | None = Field(None, description='Must be the key in the path (a key cannot change).')
    name: Text | None = None
    model: Word | None = None
    temperature: Temperature | None = None
    max_tokens: Count | None = None
    top_p: TopP | None = None
    streaming: Flag | None = None
    timeout_s: Timeout | None = None
    provider_options: JsonObject | None = None
    is_sandbox: Flag | None = None


class ToneInput(Input):
    """A tone to create."""

    key: Key
    name: Text = ''
    emoji: Emoji = ''
    instructions: LongText = ''


class TonePatch(Patch):
    """Changes to a tone."""

    not_null = ('key', 'name', 'emoji', 'instructions')

    key: Key | None = Field(None, description='Must be the key in the path (a key cannot change).')
    name: Text | None = None
    emoji: Emoji | None = None
    instructions: LongText | None = None


class AccessInput(Input):
    """Who may use an agent: tenants and actors as `type:id` or `type` (empty lists: anyone)."""

    tenants: list[Scope] = Field(default_factory=list, max_length=1000)
    actors: list[Scope] = Field(default_factory=list, max_length=1000)


class AgentInput(Input):
    """A configured agent to create (version 1)."""

    key: Key
    name: Text = ''
    description: LongText = ''
    instructions: LongText = ''
    preset_key: Key | None = None
    tone_key: Key | None = None
    tools: list[ToolRef] = Field(
        default_factory=list, max_length=500, description='Tool names and `tag:<tag>` entries.'
    )
    rag_sources: list[JsonValue] = Field(default_factory=list, max_length=500)
    access: AccessInput = Field(default_factory=AccessInput)
    spec: JsonObject = Field(
        default_factory=dict,
        description='Further pydantic-ai AgentSpec fields: output_schema, retries, capabilities, ...',
    )
    is_sandbox: Flag = False
    enabled: Flag = True


class AgentPatch(Patch):
    """Changes to a configured agent; a change makes a new version."""

    not_null = (
        'key',
        'name',
        'description',
        'instructions',
        'tools',
        'rag_sources',
        'access',
        'spec',
        'is_sandbox',
        'enabled',
    )

    key: Key | None = Field(None, description='Must be the key in the path (a key cannot change).')
    name: Text | None = None
    description: LongText | None = None
    instructions: LongText | None = None
    preset_key: Key | None = None
    tone_key: Key | None = None
    tools: list[ToolRef] | None = Field(None, max_length=500)
    rag_sources: list[JsonValue] | None = Field(None, max_length=500)
    access: AccessInput | None = None
    spec: JsonObject | None = None
    is_sandbox: Flag | None = None
    enabled: Flag | None = None


class SettingInput(Input):
    """A value for a registry-managed setting, validated as the setting's type."""

    value: JsonValue
