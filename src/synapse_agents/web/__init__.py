"""The HTTP side of Synapse: the FastAPI app factory (`web.app`), its routes and the dashboard.

The package imports nothing itself: `synapse --help` loads the web plugin (`web.plugin`) without
the app, the runtime or FastAPI's routes, which come with the first request for them.
"""
