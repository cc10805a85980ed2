"""The runtime root: one assembled Synapse for `synapse serve`, `mount()`, the CLI and a worker."""

from .assembled import DEMO_TARGET, SynapseRuntime
from .jobs import Job, JobRunner

__all__ = ['DEMO_TARGET', 'Job', 'JobRunner', 'SynapseRuntime']
