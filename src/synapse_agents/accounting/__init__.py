"""Accounting: the ledger's figures, prices, and spending limits that cannot be raced.

See docs/accounting.md. The tables are in `accounting.tables` (the ledger itself, `llm_calls`, is
the store's).
"""
