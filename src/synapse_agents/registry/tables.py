"""The registry's tables: providers, models and their prices, presets, tones, settings, agents.

Every kind is found by its `key` (unique, the app's own name for it). Agents and presets carry
`is_sandbox`: listings leave sandboxes out, resolution by key finds them (see docs/registry.md).
An agent's every edit bumps `version` and keeps the previous definition in `agent_config_versions`.
Migration 0006 creates them.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Boolean, Float, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..store.ids import new_id
from ..store.schema import Base, JsonType, utcnow

KEY_LENGTH = 100
"""The longest key of a registry entry."""


class Provider(Base):
    """Where models are served from, and the credential to reach them (encrypted)."""

    __tablename__ = 'registry_providers'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    kind: Mapped[str] = mapped_column(String(32))
    """`openai`, `anthropic`, `google`, `groq`, `mistral` or `openai-compatible`."""
    name: Mapped[str] = mapped_column(String(255), default='')
    base_url: Mapped[str | None] = mapped_column(String(2000))
    secret: Mapped[str | None] = mapped_column(Text)
    """The API key, encrypted (`encryption.SecretBox`); never the key itself."""
    secret_last4: Mapped[str | None] = mapped_column(String(8))
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class RegistryModel(Base):
    """A model Synapse knows: which provider serves it, what it is called there, its metadata."""

    __tablename__ = 'registry_models'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    key: Mapped[str] = mapped_column(String(255), unique=True)
    """The model id presets and the selector use: `openai:gpt-5.6-sol`, `local-llama:llama3.2`."""
    provider_key: Mapped[str] = mapped_column(String(KEY_LENGTH))
    """A registry provider's key, or a pydantic-ai provider name (`openai`, `anthropic`, ...)."""
    name: Mapped[str] = mapped_column(String(255))
    """The model's name at its provider (`gpt-5.6-sol`)."""
    label: Mapped[str] = mapped_column(String(255), default='')
    context_window: Mapped[int | None] = mapped_column(Integer)
    max_output_tokens: Mapped[int | None] = mapped_column(Integer)
    meta: Mapped[dict[str, Any]] = mapped_column(default=dict)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (Index('ix_registry_models_provider_name', 'provider_key', 'name'),)


class ModelPrice(Base):
    """A model's prices per million tokens from `valid_from` on (the newest one in force applies)."""

    __tablename__ = 'registry_model_prices'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    model_key: Mapped[str] = mapped_column(String(255))
    input_per_mtok: Mapped[Decimal] = mapped_column()
    output_per_mtok: Mapped[Decimal] = mapped_column()
    cache_read_per_mtok: Mapped[Decimal | None] = mapped_column()
    cache_write_per_mtok: Mapped[Decimal | None] = mapped_column()
    currency: Mapped[str] = mapped_column(String(8), default='USD')
    valid_from: Mapped[datetime] = mapped_column(default=utcnow)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (
        UniqueConstraint('model_key', 'valid_from', name='uq_registry_model_prices_from'),
        Index('ix_registry_model_prices_model', 'model_key', 'valid_from'),
    )


class Preset(Base):
    """A named model with its settings."""

    __tablename__ = 'registry_presets'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(255), default='')
    model: Mapped[str] = mapped_column(String(255))
    """A model id: a registry model's key, or a pydantic-ai model string (`openai:gpt-5`, `demo`)."""
    temperature: Mapped[float | None] = mapped_column(Float)
    max_tokens: Mapped[int | None] = mapped_column(Integer)
    top_p: Mapped[float | None] = mapped_column(Float)
    streaming: Mapped[bool] = mapped_column(Boolean, default=True)
    timeout_s: Mapped[float | None] = mapped_column(Float)
    provider_options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    is_sandbox: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Tone(Base):
    """A style of answer: a name, an emoji and the instructions that make it."""

    __tablename__ = 'registry_tones'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(255), default='')
    emoji: Mapped[str] = mapped_column(String(16), default='')
    instructions: Mapped[str] = mapped_column(Text, default='')
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class RegistrySetting(Base):
    """A stored value of a global setting (overrides the file and environment where it applies)."""

    __tablename__ = 'registry_settings'

    key: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    value: Mapped[Any] = mapped_column(JsonType, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class AgentConfig(Base):
    """An agent configured in the database: built with `Agent.from_spec` plus Synapse's extras."""

    __tablename__ = 'agent_configs'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    name: Mapped[str] = mapped_column(String(255), default='')
    description: Mapped[str] = mapped_column(Text, default='')
    instructions: Mapped[str] = mapped_column(Text, default='')
    preset_key: Mapped[str | None] = mapped_column(String(KEY_LENGTH))
    tone_key: Mapped[str | None] = mapped_column(String(KEY_LENGTH))
    tools: Mapped[list[Any]] = mapped_column(default=list)
    """Tool names and `tag:<tag>` entries from the tool registry."""
    rag_sources: Mapped[list[Any]] = mapped_column(default=list)
    access: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Who may use it: `{"tenants": [...], "actors": [...]}` of `type:id` or `type` (empty: anyone)."""
    spec: Mapped[dict[str, Any]] = mapped_column(default=dict)
    """Further pydantic-ai `AgentSpec` fields (output schema, retries, capabilities, ...)."""
    version: Mapped[int] = mapped_column(Integer, default=1)
    is_sandbox: Mapped[bool] = mapped_column(Boolean, default=False)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class AgentConfigVersion(Base):
    """One version of a configured agent, as it was (the playground records which one answered)."""

    __tablename__ = 'agent_config_versions'

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    agent_key: Mapped[str] = mapped_column(String(KEY_LENGTH))
    version: Mapped[int] = mapped_column(Integer)
    definition: Mapped[dict[str, Any]] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    __table_args__ = (UniqueConstraint('agent_key', 'version', name='uq_agent_config_versions'),)
