"""The playground's model selector: which models an agent can run on, and building the chosen one.

Selectable ids: `demo` (the offline `DemoModel`), `demo-fast` (the same, streaming about six times
faster: a second model to try the selector with) and pydantic-ai model strings (`openai:gpt-5.6-sol`).
Building the chosen one is the model resolver's business (`registry/providers.py`: every model id,
registry models included). The list for an agent is, in order:

1. the agent's own model (the default), when it has one;
2. the demo models (`demo` is the default for an agent with no model of its own);
3. the `models` setting;
4. common models of every provider whose API key is in the environment (`PROVIDER_MODELS`).

A model whose key is missing is still listed when the agent or the `models` setting names it, marked
`available: false` with the variable to set; running it answers with an error card naming it.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any

from pydantic_ai.exceptions import UserError

DEMO_MODEL_ID = 'demo'
DEMO_FAST_ID = 'demo-fast'
DEMO_IDS = (DEMO_MODEL_ID, DEMO_FAST_ID)
DEMO_PROVIDER = 'synapse'
"""The demo model's `system` (its provider name on answers and ledger rows)."""

PROVIDER_ENV: dict[str, tuple[str, ...]] = {
    'openai': ('OPENAI_API_KEY',),
    'openai-chat': ('OPENAI_API_KEY',),
    'anthropic': ('ANTHROPIC_API_KEY',),
    'google': ('GOOGLE_API_KEY', 'GEMINI_API_KEY'),
    'groq': ('GROQ_API_KEY',),
    'mistral': ('MISTRAL_API_KEY',),
    'cohere': ('CO_API_KEY',),
    'deepseek': ('DEEPSEEK_API_KEY',),
    'xai': ('XAI_API_KEY',),
    'cerebras': ('CEREBRAS_API_KEY',),
    'huggingface': ('HF_TOKEN',),
    'moonshotai': ('MOONSHOTAI_API_KEY',),
}
"""The environment variable(s) that hold each provider's API key (any one of them is enough)."""

PROVIDER_MODELS: dict[str, tuple[str, ...]] = {
    'openai': ('openai:gpt-6.1-sol', 'openai:gpt-5.6-sol', 'openai:gpt-5.6-luna'),
    'anthropic': ('anthropic:claude-sonnet-5-5', 'anthropic:claude-opus-5-5', 'anthropic:claude-haiku-5-5'),
    'google': ('google:gemini-3.1-flash-image',),
    'groq': ('groq:openai/gpt-oss-120b', 'groq:openai/gpt-oss-20b'),
    'mistral': ('mistral:mistral-large-latest',),
    'cohere': ('cohere:command-a-03-2025',),
    'deepseek': ('deepseek:deepseek-v4-pro', 'deepseek:deepseek-flash'),
    'xai': ('xai:grok-4.3', 'xai:grok-3-mini'),
}
"""Common models offered for each provider whose key is set: a smart one first, then cheaper ones."""


@dataclass(frozen=True)
class ModelOption:
    """One entry of the model selector."""

    id: str
    label: str
    provider: str
    source: str
    available: bool
    missing_env: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class MissingApiKey(UserError):
    """The chosen model's provider needs an API key that is not in the environment."""

    def __init__(self, model_id: str, env_var: str) -> None:
        super().__init__(f'Set {env_var} to run {model_id} (the variable is not in the environment).')
        self.model_id = model_id
        self.env_var = env_var


def provider_of(model_id: str) -> str:
    """The provider part of `provider:model` (`synapse` for the demo model)."""
    if model_id in DEMO_IDS:
        return DEMO_PROVIDER
    provider, _, _ = model_id.partition(':')
    return provider.removeprefix('gateway/') if ':' in model_id else ''


def missing_env_for(model_id: str, environ: Any = None) -> str | None:
    """The variable to set for `model_id`, or None when its key is present (or none is known)."""
    env = os.environ if environ is None else environ
    variables = PROVIDER_ENV.get(provider_of(model_id))
    if not variables or any(env.get(name) for name in variables):
        return None
    return variables[0]


def _option(model_id: str, source: str, environ: Any) -> ModelOption:
    if model_id == DEMO_MODEL_ID:
        return ModelOption(DEMO_MODEL_ID, 'Synapse demo model', 'synapse', source, True, None)
    if model_id == DEMO_FAST_ID:
        return ModelOption(DEMO_FAST_ID, 'Synapse demo model (fast)', 'synapse', source, True, None)
    missing = missing_env_for(model_id, environ)
    label = model_id.partition(':')[2] or model_id
    return ModelOption(model_id, label, provider_of(model_id), source, missing is None, missing)


def selectable_models(agent_model_id: str | None, extra: list[str], environ: Any = None) -> list[ModelOption]:
    """The selector's entries for an agent whose own model is `agent_model_id` (None: it has none)."""
    env = os.environ if environ is None else environ
    options: list[ModelOption] = []
    seen: set[str] = set()

    def add(model_id: str, source: str) -> None:
        if model_id and model_id not in seen:
            seen.add(model_id)
            options.append(_option(model_id, source, env))

    if agent_model_id:
        add(agent_model_id, 'agent')
    add(DEMO_MODEL_ID, 'demo')
    add(DEMO_FAST_ID, 'demo')
    for model_id in extra:
        add(model_id, 'setting')
    for provider, models in PROVIDER_MODELS.items():
        if any(env.get(name) for name in PROVIDER_ENV[provider]):
            for model_id in models:
                add(model_id, 'provider')
    return options
