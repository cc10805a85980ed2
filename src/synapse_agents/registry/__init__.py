"""The registry: providers, models and prices, presets, tones, settings and agents kept in the database.

See docs/registry.md. The tables are in `registry.tables`; reading and writing them goes through
the service modules of this package.
"""
