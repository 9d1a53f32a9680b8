"""The agent platforms a bridge can run, one subpackage each (opencode, claude, pi).

Each names a factory `create(PlatformContext) -> Platform` here, imported only when
that platform is asked for (a platform's SDK may be slow to import, or absent).
docs/PLUGIN-CONTRACT.md says what a platform must do; bridges/runtime/platform.py is
the interface.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import cast

from bridges.runtime.platform import Platform, PlatformContext

Factory = Callable[[PlatformContext], Platform]

# name → "module:factory"
PLATFORMS: dict[str, str] = {
    "stub": "bridges.runtime.stub:create",
    "claude": "bridges.platforms.claude:create",
    "opencode": "bridges.platforms.opencode:create",
    "pi": "bridges.platforms.pi:create",
}


def factory(name: str) -> Factory:
    if name not in PLATFORMS:
        raise LookupError(f"no platform {name!r}: one of {', '.join(sorted(PLATFORMS))}")
    module, _, attribute = PLATFORMS[name].partition(":")
    return cast(Factory, getattr(importlib.import_module(module), attribute))
