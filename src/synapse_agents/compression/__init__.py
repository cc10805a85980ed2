"""History compression: the older turns of a long conversation sent as a stored summary (docs/memory.md)."""
