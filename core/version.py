"""The gateway's version, in one place.

The wheel's metadata reads it from here (`[tool.hatch.version]` in pyproject.toml),
and `agentmail --version`, `GET /api/v1/version` and the OpenAPI document show it,
so a release changes one line.
"""

from __future__ import annotations

VERSION = "0.1.0"
