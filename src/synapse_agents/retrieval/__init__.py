"""Retrieval: sources of documents, their text in chunks, and search by meaning (docs/retrieval.md)."""
