"""Synapse as an MCP server: sandbox tools for a coding assistant (`synapse mcp`)."""
