"""Retrieval: sources of documents, their text in chunks, and search over them by meaning (docs/retrieval.md)."""
