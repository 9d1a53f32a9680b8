"""Debian's Chromium driven by Playwright for the web UI's end-to-end tests (docs/web.md).

Playwright's own browser builds are never downloaded (`playwright install` is not
run): the tests drive `/usr/bin/chromium` from Debian, which `make e2e` installs
with apt when it is missing. The flags keep the browser off the network (no
update checks, no sync, no QUIC probing) and working as root in a container.
"""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = Path(os.environ.get("AGENTMAIL_E2E_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 320, "height": 640}
SIZES = {"desktop": DESKTOP, "phone": PHONE, "small": SMALL_PHONE}

REPOSITORY = Path(__file__).resolve().parents[2]
WEB_DIST = REPOSITORY / "web" / "dist"
SCREENSHOTS = REPOSITORY / "web" / "screenshots"
AXE_SCRIPT = REPOSITORY / "web" / "node_modules" / "axe-core" / "axe.min.js"


def missing_prerequisites() -> list[str]:
    """What the e2e suite needs and does not find, each with how to get it."""
    missing = []
    if not CHROMIUM.is_file():
        missing.append(f"{CHROMIUM} is missing: `apt-get install -y chromium` (make e2e does it)")
    if not (WEB_DIST / "index.html").is_file():
        missing.append(f"{WEB_DIST} is not built: run `make web` (make e2e does it)")
    if not AXE_SCRIPT.is_file():
        missing.append(f"{AXE_SCRIPT} is missing: run `cd web && npm ci`")
    return missing
