"""The runtime: the assembled Synapse (`assembled.SynapseRuntime`; `root.SynapseRuntime` on the
default plugins) for `synapse serve`, `mount()`, the CLI and a worker, the Python API (`synapse`,
`conversation`, `blocking`) and the jobs a root runs (`jobs`). The package imports none of them
itself, so that the command line loads the maintenance plugin (`runtime.plugin`) cheaply.
"""
