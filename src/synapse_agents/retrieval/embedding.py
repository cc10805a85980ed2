"""The embedder retrieval uses (the `embedder` setting, shared with memory), and its ledger rows.

Every embedding call is a ledger row with module `rag`, under the tenant of the source embedded (or
of the search). With the setting `off`, or an embedder that cannot be made here, there is none:
sources are still indexed (their chunks kept without vectors) and searched by text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import anyio.to_thread
import numpy as np
from pydantic_ai.embeddings import Embedder

from ..accounting import embedding_calls
from ..embeddings.choose import EmbedderUnavailable, embedder_for, embedder_name
from ..settings import Settings
from ..store import Store

logger = logging.getLogger('synapse.retrieval')

MODULE = 'rag'
BATCH = 64
"""Texts per embedding call."""


@dataclass(frozen=True)
class RagEmbedder:
    """The embedder of a root (None: none) and why there is none when the setting names one."""

    embedder: Embedder | None
    problem: str | None = None

    @classmethod
    def of(cls, settings: Settings) -> RagEmbedder:
        """The embedder the `embedder` setting names (none, with the reason, when it cannot be made)."""
        try:
            return cls(embedder_for(settings.embedder))
        except EmbedderUnavailable as exc:
            logger.warning('%s; retrieval searches by text', exc)
            return cls(None, str(exc))

    @property
    def name(self) -> str | None:
        """`system:model`, what chunks are stored under (None without an embedder)."""
        return embedder_name(self.embedder)

    async def embed(
        self,
        texts: Sequence[str],
        store: Store,
        settings: Settings,
        *,
        tenant: str | None,
        kind: Literal['query', 'document'] = 'document',
        user: str | None = None,
    ) -> list[np.ndarray]:
        """The vectors of `texts` (in batches of `BATCH`), one ledger row per call. Raises what the
        embedder raises; a caller decides what a failure means."""
        if self.embedder is None:
            raise RuntimeError('no embedder')
        vectors: list[np.ndarray] = []
        for start in range(0, len(texts), BATCH):
            batch = list(texts[start : start + BATCH])
            began = time.perf_counter()
            if kind == 'query':
                result = await self.embedder.embed_query(batch)
            else:
                result = await self.embedder.embed_documents(batch)
            row = embedding_calls.embedding_row(
                result,
                settings,
                tenant=tenant,
                user=user,
                duration_ms=int((time.perf_counter() - began) * 1000),
                module=MODULE,
            )
            await anyio.to_thread.run_sync(embedding_calls.record, store, [row])
            vectors.extend(np.asarray(v, dtype=np.float32) for v in result.embeddings)
        return vectors
