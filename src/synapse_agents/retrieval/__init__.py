"""Retrieval: sources indexed for search by meaning, with citations, and vector memory."""
