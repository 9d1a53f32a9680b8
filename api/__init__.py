"""HTTP: the /api/v1 REST API and its SSE stream, /metrics, the health checks and the web UI.

FastAPI routes call `core` services and map its domain errors once (api/errors.py).
Imports `core` only; never another adapter, nor `gateway`. Modules: api/README.md.
"""
