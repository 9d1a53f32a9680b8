"""The wheel as users get it, and fresh virtualenvs to install it in, fast and offline.

Building: `python -m build --no-isolation`, the command docs/deploy.md gives (the
sdist, then the wheel built from that sdist), with the test environment's hatchling
(no download of a build backend). The web UI must be built first (hatch_build.py
ships `web/dist` only when it exists): when it is missing it is built here if npm
is on PATH, else the tests that need it are skipped with the reason.

Installing: a full `pip install` of ~40 dependencies into each new virtualenv
would take minutes and need the network. The dependencies are the same as the
ones this test run already has, so a fresh venv is given them through a `.pth`
file naming a directory of links to this environment's site-packages, minus
this project's own distribution and its editable-install hooks. The wheel itself
is installed for real by pip, so what runs is the wheel's code, not the checkout's
(the tests check `api.__file__`). A venv may be made from another interpreter of the
same minor version (Debian's `/usr/bin/python3`): the linked compiled modules fit it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
_OURS = ("agentmail_gateway", "_editable_impl_agentmail_gateway", "__editable__")


def ensure_web_dist() -> None:
    """`web/dist` built, or the test skipped with why (CI has npm: there it is built).

    Under pytest-xdist two workers may need it at once: one builds, holding a lock,
    the other waits and finds it built (else it ran `vite` from a half-installed
    node_modules while the first was still in `npm ci`)."""
    if (DIST / "index.html").is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("web/dist is not built and npm is not on PATH: cannot ship the UI")
    with _checkout_lock():
        if (DIST / "index.html").is_file():
            return
        web = ROOT / "web"
        if not (web / "node_modules" / ".package-lock.json").is_file():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=web, check=True)
        subprocess.run([npm, "run", "build"], cwd=web, check=True)


@contextlib.contextmanager
def _checkout_lock() -> Iterator[None]:
    """One builder at a time in this checkout (pytest-xdist workers are processes)."""
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    lock = Path(tempfile.gettempdir()) / f"agentmail-build-{checkout}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        yield


def build_wheel(outdir: Path) -> Path:
    with _checkout_lock():
        return _build_wheel(outdir)


def _build_wheel(outdir: Path) -> Path:
    """The wheel of the documented build; its sdist lies beside it."""
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(outdir)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = outdir.glob("agentmail_gateway-*.whl")
    return wheel


def dependencies_dir(where: Path) -> Path:
    """Links to every entry of this environment's site-packages but our own project."""
    site = Path(sysconfig.get_paths()["purelib"])
    where.mkdir(parents=True, exist_ok=True)
    for entry in site.iterdir():
        if not entry.name.startswith(_OURS) and entry.suffix != ".pth":
            (where / entry.name).symlink_to(entry)
    return where


def fresh_venv(path: Path, dependencies: Path, base: Path | None = None) -> Path:
    """A new virtualenv (no pip of its own) that sees `dependencies`; its python.

    `base` is the interpreter it is made from (default: the one running the tests);
    it must be the same minor version, since `dependencies` hold compiled modules."""
    if base is None:
        venv.EnvBuilder(with_pip=False).create(path)
    else:
        subprocess.run([base, "-m", "venv", "--without-pip", path], check=True, capture_output=True)
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "agentmail-test-dependencies.pth").write_text(f"{dependencies}\n")
    return python


def pip_install(python: Path, wheel: Path) -> None:
    """The wheel into that venv, offline (its dependencies are there already)."""
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        env=clean_env(),
    )


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without this checkout on the path nor our settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("AGENTMAIL_") and k not in ("PYTHONPATH", "DATABASE_URL")
    }
    env.pop("ADMIN_PASSWORD", None)
    env.update(extra)
    return env
