"""Ship the built web UI (`web/dist`) in the sdist, and inside the wheel as `api/web_dist`
(see api/web_ui.py).

`python -m build` makes the sdist first and then the wheel from the sdist, so the
UI reaches the wheel only if the sdist carries it: `web/dist` is ignored by git
(a build product) and would be left out of the sdist like every ignored file.

A plain `force-include` in pyproject.toml fails the build when `web/dist` is
missing, and a clone without Node.js must still install (and serve the API).
So the build is force-included only when it exists, and a build without it says
so in a warning; an editable install needs none of it, since api/web_ui.py also
looks at the checkout's `web/dist`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

WHERE = {"sdist": "web/dist", "wheel": "api/web_dist"}


class WebDistHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version != "standard" or self.target_name not in WHERE:
            return
        dist = Path(self.root) / "web" / "dist"
        if (dist / "index.html").is_file():
            build_data["force_include"][str(dist)] = WHERE[self.target_name]
        else:
            self.app.display_warning(
                f"web/dist is not built: this {self.target_name} has NO web UI, the API "
                "only (build it first: make web, or cd web && npm ci && npm run build)"
            )
