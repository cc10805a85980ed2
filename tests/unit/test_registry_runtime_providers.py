"""Registry providers and models become pydantic-ai models (no request is sent), on every database."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.models.groq import GroqModel
from pydantic_ai.models.mistral import MistralModel
from pydantic_ai.models.openai import OpenAIChatModel

from synapse_agents.demo import DemoModel
from synapse_agents.encryption import NoSecretKey, SecretBox, new_key
from synapse_agents.registry.providers import (
    NO_KEY,
    ModelUnavailable,
    ProviderKeyMissing,
    build_model,
    model_for,
)
from synapse_agents.registry.tables import Provider, RegistryModel
from synapse_agents.store import Store
from synapse_agents.targets.model_choice import MissingApiKey

BOX = SecretBox.from_setting(new_key())


def add(store: Store, *rows: Any) -> None:
    with store.write() as session:
        session.add_all(rows)


def provider(key: str, kind: str, *, secret: str | None = None, **fields: Any) -> Provider:
    return Provider(key=key, kind=kind, secret=BOX.encrypt(secret) if secret else None, **fields)


def test_each_kind_builds_with_its_decrypted_key_and_base_url(store: Store) -> None:
    add(
        store,
        provider('oa', 'openai', secret='sk-openai-1'),
        provider('oa-proxy', 'openai', secret='sk-openai-2', base_url='https://proxy.example/v1'),
        provider('claude', 'anthropic', secret='sk-ant-3', base_url='https://anthropic.example'),
        provider('gem', 'google', secret='g-key-4'),
        provider('fast', 'groq', secret='gsk-5'),
        provider('mis', 'mistral', secret='m-key-6'),
    )
    openai = build_model(store, BOX, 'oa', 'gpt-5.6-sol')
    assert isinstance(openai, OpenAIChatModel) and openai.model_name == 'gpt-5.6-sol'
    assert openai.client.api_key == 'sk-openai-1' and openai.base_url == 'https://api.openai.com/v1/'
    proxied = build_model(store, BOX, 'oa-proxy', 'gpt-5.6-luna')
    assert isinstance(proxied, OpenAIChatModel) and proxied.base_url == 'https://proxy.example/v1/'
    claude = build_model(store, BOX, 'claude', 'claude-sonnet-5-5')
    assert isinstance(claude, AnthropicModel) and claude.client.api_key == 'sk-ant-3'  # type: ignore[union-attr]
    assert claude.base_url.rstrip('/') == 'https://anthropic.example'
    gemini = build_model(store, BOX, 'gem', 'gemini-3.1-flash')
    assert isinstance(gemini, GoogleModel) and gemini.client._api_client.api_key == 'g-key-4'
    groq = build_model(store, BOX, 'fast', 'openai/gpt-oss-20b')
    assert isinstance(groq, GroqModel) and groq.client.api_key == 'gsk-5'
    mistral = build_model(store, BOX, 'mis', 'mistral-large-latest')
    assert isinstance(mistral, MistralModel)
    assert mistral.client.sdk_configuration.security.api_key == 'm-key-6'  # type: ignore[union-attr]


def test_an_openai_compatible_server_gets_its_base_url_and_never_the_openai_key(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv('OPENAI_API_KEY', 'sk-real-openai-key')
    add(
        store,
        provider('llama', 'openai-compatible', base_url='http://127.0.0.1:8080/v1'),
        provider('vllm', 'openai-compatible', base_url='http://gpu.internal:8000/v1', secret='vllm-token'),
        provider('broken', 'openai-compatible'),
    )
    llama = build_model(store, BOX, 'llama', 'llama3.2')
    assert isinstance(llama, OpenAIChatModel) and llama.base_url == 'http://127.0.0.1:8080/v1/'
    assert llama.client.api_key == NO_KEY
    vllm = build_model(store, BOX, 'vllm', 'qwen3')
    assert isinstance(vllm, OpenAIChatModel) and vllm.client.api_key == 'vllm-token'
    with pytest.raises(ModelUnavailable, match="'broken' is openai-compatible and has no base_url"):
        build_model(store, BOX, 'broken', 'x')


def test_a_model_id_is_a_registry_model_key_else_a_pydantic_ai_model_string(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(
        store,
        provider('local', 'openai-compatible', base_url='http://127.0.0.1:11434/v1'),
        RegistryModel(key='local:llama3.2', provider_key='local', name='llama3.2'),
        RegistryModel(key='house-claude', provider_key='anthropic', name='claude-haiku-5-5'),
    )
    model = model_for(store, BOX, 'local:llama3.2', settings={'temperature': 0.2})
    assert isinstance(model, OpenAIChatModel) and model.model_name == 'llama3.2'
    assert model.base_url == 'http://127.0.0.1:11434/v1/' and model.settings == {'temperature': 0.2}
    assert isinstance(model_for(store, BOX, 'demo'), DemoModel)
    monkeypatch.setenv('OPENAI_API_KEY', 'sk-env')
    string_model = model_for(store, BOX, 'openai:gpt-5.6-luna')
    assert (string_model.system, string_model.model_name) == ('openai', 'gpt-5.6-luna')
    with pytest.raises(MissingApiKey, match='ANTHROPIC_API_KEY'):
        model_for(store, BOX, 'house-claude')  # provider_key names pydantic-ai's provider
    monkeypatch.setenv('ANTHROPIC_API_KEY', 'sk-ant-env')
    claude = model_for(store, BOX, 'house-claude')
    assert isinstance(claude, AnthropicModel) and claude.model_name == 'claude-haiku-5-5'
    with pytest.raises(ModelUnavailable, match="Unknown model 'nonsense': it is neither a registry model"):
        model_for(store, BOX, 'nonsense')


def test_what_cannot_be_built_says_why(store: Store) -> None:
    add(
        store,
        provider('off', 'openai', secret='sk-1', enabled=False),
        provider('keyless', 'anthropic'),
        provider('odd', 'cohere'),
        provider('locked', 'groq', secret='gsk-1'),
        RegistryModel(key='off-model', provider_key='off', name='gpt', enabled=True),
        RegistryModel(key='parked', provider_key='keyless', name='claude', enabled=False),
    )
    with pytest.raises(ModelUnavailable, match="Provider 'off' is disabled"):
        model_for(store, BOX, 'off-model')
    with pytest.raises(ModelUnavailable, match="Model 'parked' is disabled"):
        model_for(store, BOX, 'parked')
    with pytest.raises(
        ProviderKeyMissing, match=r"Store an API key for provider 'keyless' \(or set ANTHROPIC_API_KEY\)"
    ):
        build_model(store, BOX, 'keyless', 'claude')
    with pytest.raises(ModelUnavailable, match="kind 'cohere', which is not one of"):
        build_model(store, BOX, 'odd', 'command')
    with pytest.raises(NoSecretKey):
        build_model(store, SecretBox(()), 'locked', 'llama')
    with pytest.raises(ModelUnavailable, match="No provider with key 'ghost'"):
        build_model(store, BOX, 'ghost', 'x')
