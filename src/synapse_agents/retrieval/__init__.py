"""Retrieval: sources of documents, indexed into chunks and searched by meaning (docs/retrieval.md)."""
