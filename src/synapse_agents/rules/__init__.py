"""Rules: hard directives written by people, rendered at the top of the prompt (docs/memory.md)."""
