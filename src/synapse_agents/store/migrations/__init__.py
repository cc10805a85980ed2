"""Alembic migrations for Synapse's tables, applied programmatically (see `store.migrate`)."""
