"""Workflows: versioned JSON definitions of agent steps run in order, and their runs."""
