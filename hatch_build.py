"""Ship the built web UI inside the wheel, as `api/web_dist` (see api/web_ui.py).

A plain `force-include` in pyproject.toml fails the build when `web/dist` is
missing, and a clone without Node.js must still install (and serve the API).
So the build is force-included only when it exists; an editable install needs
none of it, since api/web_ui.py also looks at the checkout's `web/dist`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class WebDistHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        dist = Path(self.root) / "web" / "dist"
        if version == "standard" and (dist / "index.html").is_file():
            build_data["force_include"][str(dist)] = "api/web_dist"
        elif version == "standard":
            self.app.display_warning("web/dist is not built: the wheel has no web UI")
