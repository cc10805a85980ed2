"""PII redaction: personal data replaced by placeholders before a prompt leaves, and restored in
the reply (docs/privacy.md)."""
