"""Embeddings for memory and retrieval: pydantic-ai's `Embedder`, with an offline default (docs/memory.md)."""
