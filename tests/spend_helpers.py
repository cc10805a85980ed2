"""Ledger rows for the accounting tests, written by the store's own ledger write (`record_llm_call`)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from fastapi import FastAPI

from synapse_agents.accounting.ledger_writes import record_llm_call
from synapse_agents.accounting.routes import router
from synapse_agents.runtime.root import SynapseRuntime as SynapseContext
from synapse_agents.store import Store
from synapse_agents.store.ids import new_id
from synapse_agents.web.errors import install_error_handlers


def at(text: str) -> datetime:
    """An aware UTC datetime from `2026-03-29 00:30`."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def ledger_row(
    *,
    created: datetime,
    cost: str | None = None,
    currency: str | None = None,
    cost_reference: str | None = None,
    reference_currency: str | None = None,
    agent: str | None = 'support',
    user: str | None = None,
    tenant: str | None = None,
    model: str | None = 'gpt-x',
    provider: str | None = 'openai',
    tokens: tuple[int, int] = (100, 20),
    **extra: Any,
) -> dict[str, Any]:
    """One `llm_calls` row as the recorder writes it (a cost with no currency given is USD)."""
    return {
        'id': new_id(),
        'run_id': None,
        'parent_run_id': None,
        'conversation_id': None,
        'module': 'chat',
        'agent_key': agent,
        'provider': provider,
        'model': model,
        'input_tokens': tokens[0],
        'output_tokens': tokens[1],
        'cache_read_tokens': 0,
        'cache_write_tokens': 0,
        'reasoning_tokens': 0,
        'cost': None if cost is None else Decimal(cost),
        'currency': currency or ('USD' if cost is not None else None),
        'price_source': 'genai-prices' if cost is not None else None,
        'duration_ms': 10,
        'user': user,
        'tenant': tenant,
        'preset': None,
        'cost_reference': None if cost_reference is None else Decimal(cost_reference),
        'reference_currency': reference_currency,
        'price_version': None,
        'created_at': created,
        **extra,
    }


def seed(store: Store, *rows: dict[str, Any]) -> list[str]:
    """Write the rows in one transaction; their ids."""
    with store.write() as session:
        for row in rows:
            record_llm_call(row)(session.connection())
    return [row['id'] for row in rows]


def accounting_app(context: SynapseContext) -> FastAPI:
    """An app serving the accounting router with Synapse's context and JSON errors."""
    app = FastAPI()
    app.state.synapse = context
    install_error_handlers(app)
    app.include_router(router)
    return app
