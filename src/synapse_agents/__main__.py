"""`python -m synapse_agents` runs the `synapse` command."""

from .cli import main

main()
