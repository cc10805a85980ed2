"""Embedding calls in the ledger: one `llm_calls` row per call, module `embed` (docs/accounting.md).

The offline embedder costs nothing and its rows say so (cost 0, price source `local`); a provider's
call is priced by genai-prices like any model call, and left unpriced when it does not know it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic_ai.embeddings import EmbeddingResult
from sqlalchemy import insert

from ..settings import Settings
from ..store import Store
from ..store.ids import new_id
from ..store.schema import utcnow
from .pricing import GENAI_CURRENCY, UNPRICED, PricedCall, _priced, genai_cost, genai_version
from .tables import LlmCall

MODULE = 'embed'
LOCAL_SYSTEM = 'local'


def embedding_row(
    result: EmbeddingResult,
    settings: Settings,
    *,
    tenant: str | None,
    user: str | None = None,
    agent_key: str | None = None,
    conversation_id: str | None = None,
    duration_ms: int | None = None,
    module: str = MODULE,
) -> dict[str, Any]:
    """The ledger row of one embedding call."""
    return {
        'id': new_id(),
        'run_id': None,
        'parent_run_id': None,
        'conversation_id': conversation_id,
        'module': module,
        'agent_key': agent_key,
        'provider': result.provider_name,
        'model': result.model_name,
        'input_tokens': result.usage.input_tokens,
        'output_tokens': 0,
        'cache_read_tokens': 0,
        'cache_write_tokens': 0,
        'reasoning_tokens': 0,
        **_price(result, settings).columns(),
        'duration_ms': duration_ms,
        'user': user,
        'tenant': tenant,
        'preset': None,
        'created_at': utcnow(),
    }


def record(store: Store, rows: list[dict[str, Any]]) -> None:
    """Add embedding rows to the ledger (blocking)."""
    if not rows:
        return
    with store.write() as session:
        session.execute(insert(LlmCall), rows)


def _price(result: EmbeddingResult, settings: Settings) -> PricedCall:
    if result.provider_name == LOCAL_SYSTEM:
        return _priced(Decimal(0), settings.reference_currency, 'local', None, settings)
    cost = genai_cost(result.usage, result.model_name, result.provider_name, result.timestamp)
    return (
        UNPRICED if cost is None else _priced(cost, GENAI_CURRENCY, 'genai-prices', genai_version(), settings)
    )
