"""The `privacy_vaults` table (migration 0020): one conversation's placeholders and whether it redacts.

A row holds, encrypted with the `secret_key` setting (`encryption.SecretBox`), the conversation's
vault: which placeholder stands for which value (`vault.Vault`). Nothing else of it is in clear:
`entries` counts the placeholders, `tenant` (the conversation's tenant as `type:id`, None for a
conversation with none) keys the row like every scoped row, and a vault is read only for the tenant
it was written for. `anonymize_pii` is the conversation's own switch (on unless the conversation
opted out: `vault_store.set_anonymize_pii`). The row belongs to its conversation and is deleted
with it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.schema import Base, utcnow
from ..store.tables import register_table


class PrivacyVault(Base):
    """A conversation's encrypted vault and its `anonymize_pii` flag."""

    __tablename__ = 'privacy_vaults'

    conversation_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant: Mapped[str | None] = mapped_column(String(511))
    anonymize_pii: Mapped[bool] = mapped_column(Boolean, default=True)
    sealed: Mapped[str | None] = mapped_column(Text)
    """The vault's JSON, encrypted (a Fernet token); None while it holds nothing."""
    entries: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


register_table(PrivacyVault, owner='conversation', key='conversation_id')
