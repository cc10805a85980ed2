"""The runtime root: one assembled Synapse for `synapse serve`, `mount()`, the CLI and a worker."""

from .jobs import Job, JobRunner
from .root import DEMO_TARGET, SynapseRuntime

__all__ = ['DEMO_TARGET', 'Job', 'JobRunner', 'SynapseRuntime']
