"""The wheel carries the web UI and the migrations and runs without Node.

The wheel is built by `python -m build` as a release would be, installed by pip
into a fresh virtualenv (its dependencies shared, tests/support/packaging.py
says why), and `agentmail serve` is started from that venv with a PATH that has
no Node.js: the UI at `/` is the packaged build and `/api/v1/version` the one
version of `core/version.py`.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import signal
import subprocess
import tarfile
import zipfile
from pathlib import Path

import httpx
import pytest

from core.version import VERSION
from tests.support.packaging import DIST, clean_env, fresh_venv, pip_install

pytestmark = pytest.mark.packaging


def test_the_wheel_holds_the_ui_and_the_migrations(wheel: Path) -> None:
    """The wheel of `python -m build` (docs/deploy.md), which is built from the sdist:
    the UI reaches it only because the sdist carries `web/dist`."""
    (sdist,) = wheel.parent.glob("agentmail_gateway-*.tar.gz")
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert "web/dist/index.html" in in_sdist
    assert not any("node_modules" in name for name in in_sdist)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "api/web_dist/index.html" in names
    assert any(n.startswith("api/web_dist/assets/") for n in names)
    assert "core/store/migrations/env.py" in names
    assert "core/store/migrations/script.py.mako" in names
    assert any(re.match(r"core/store/migrations/versions/01_0001_\w+\.py$", n) for n in names)
    assert wheel.name == f"agentmail_gateway-{VERSION}-py3-none-any.whl"


def _install(wheel: Path, dependencies: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The wheel in a fresh venv; its bin directory and an environment without Node."""
    python = fresh_venv(tmp_path / "venv", dependencies)
    pip_install(python, wheel)
    bin_dir = python.parent
    env = clean_env(
        PATH=str(bin_dir),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite'}",
        AGENTMAIL_DATA_DIR=str(tmp_path / "data"),
        AGENTMAIL_HTTP_PORT="0",
        AGENTMAIL_SMTP_PORT="0",
        AGENTMAIL_IMAP_PORT="0",
        AGENTMAIL_BCRYPT_ROUNDS="4",
        ADMIN_PASSWORD="admin-password",
    )
    assert shutil.which("node", path=env["PATH"]) is None
    assert shutil.which("npm", path=env["PATH"]) is None
    where = subprocess.run(
        [python, "-c", "import api; print(api.__file__)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(tmp_path / "venv")), where  # the wheel's code, not the checkout
    version = subprocess.run(
        [bin_dir / "agentmail", "--version"], env=env, capture_output=True, text=True, check=True
    )
    assert version.stdout.strip() == f"agentmail {VERSION}"
    return bin_dir, env


async def test_the_installed_wheel_serves_the_ui_without_node(
    wheel: Path, dependencies: Path, tmp_path: Path
) -> None:
    bin_dir, env = await asyncio.to_thread(_install, wheel, dependencies, tmp_path)
    process = await asyncio.create_subprocess_exec(
        bin_dir / "agentmail",
        "serve",
        env=env,
        cwd=tmp_path,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        text = ""
        async with asyncio.timeout(30):
            while "stop with" not in text:
                line = (await process.stdout.readline()).decode()
                assert line, f"serve ended early: {text}"
                text += line
        port = re.search(r"http://127\.0\.0\.1:(\d+)/", text)
        assert port, text
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port.group(1)}") as client:
            page = await client.get("/")
            assert page.status_code == 200
            assert page.text == (DIST / "index.html").read_text(encoding="utf-8")
            asset = re.search(r'src="(/assets/[^"]+\.js)"', page.text)
            assert asset, page.text
            assert (await client.get(asset.group(1))).status_code == 200
            assert (await client.get("/api/v1/version")).json() == {"version": VERSION}
            assert (await client.get("/readyz")).status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)
    assert process.returncode == 0
