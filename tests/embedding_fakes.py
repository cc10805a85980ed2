"""Embedding models for tests at the model boundary (pydantic-ai `EmbeddingModel`s, no network)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.embeddings import EmbeddingModel, EmbeddingResult, EmbeddingSettings
from pydantic_ai.embeddings.result import EmbedInputType


class FailingEmbeddings(EmbeddingModel):
    """A provider that is down."""

    @property
    def model_name(self) -> str:
        return 'down'

    @property
    def system(self) -> str:
        return 'nowhere'

    async def embed(
        self,
        inputs: str | Sequence[str],
        *,
        input_type: EmbedInputType,
        settings: EmbeddingSettings | None = None,
    ) -> EmbeddingResult:
        raise ConnectionError('the embedding provider is unreachable')
