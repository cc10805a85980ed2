"""Memory: what agents keep from conversations, recalled later by recency and by meaning (docs/memory.md)."""
