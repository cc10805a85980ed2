"""Traces of nested runs: one tree per turn, debug logs per model call, OpenTelemetry out.

See docs/traces.md. `sink` (which runs are traced), `provider` (pydantic-ai's instrumentation on a
tracer provider of Synapse's own), `processor` (spans → rows, parents found), `rows`, `tables`,
`read` (roots and trees), `routes`, `cli`.
"""
