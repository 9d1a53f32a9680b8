"""`deploy/install.sh --root DIR` installs a working service tree.

The script runs as a user would run it, into a directory tree: it writes the
units, the settings (0640, with a random admin password it never prints) and the
data directory; `systemd-analyze verify` accepts both units (Debian's `systemd`
package is installed when the command is missing and we are root); the unit's
`ExecStart` run by hand with its `EnvironmentFile` serves `/readyz`; a second
run upgrades in place keeping settings and data; `--uninstall` keeps the data,
`--purge` removes it.

The virtualenv at `<root>/opt/agentmail/venv` is made by the test beforehand, with
this run's dependencies linked in (tests/support/packaging.py): install.sh finds
it and upgrades it, as on a machine where it ran before, and pip resolves every
dependency offline (`AGENTMAIL_PIP_ARGS=--no-index`) instead of downloading ~40.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from tests.support.packaging import ROOT, clean_env, fresh_venv
from tests.support.serve_process import read_banner

pytestmark = pytest.mark.packaging

INSTALL = ROOT / "deploy" / "install.sh"


def _install(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["bash", str(INSTALL), "--root", str(root), *args],
        env=clean_env(AGENTMAIL_PIP_ARGS="--no-index"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _systemd_analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "systemd"],
            check=True,
            env=env,
        )
        found = shutil.which("systemd-analyze")
    if found is None:
        pytest.skip("systemd-analyze is missing and cannot be installed (not root, no apt-get)")
    return found


def _unit(path: Path) -> dict[str, str]:
    return dict(
        line.split("=", 1) for line in path.read_text().splitlines() if re.match(r"^\w+=", line)
    )


def _environment(path: Path) -> dict[str, str]:
    return dict(
        line.split("=", 1)
        for line in path.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )


async def _serve(unit: dict[str, str]) -> tuple[asyncio.subprocess.Process, str]:
    """The unit's ExecStart with its EnvironmentFile, as systemd would start it. The
    ports are the one change: 0, so that parallel runs on one machine do not collide."""
    env = clean_env(**_environment(Path(unit["EnvironmentFile"])))
    env.update({f"AGENTMAIL_{name}_PORT": "0" for name in ("HTTP", "SMTP", "IMAP")})
    env["AGENTMAIL_BCRYPT_ROUNDS"] = "4"
    process = await asyncio.create_subprocess_exec(
        *unit["ExecStart"].split(),
        env=env,
        cwd=unit["WorkingDirectory"],
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    text = await read_banner(process, "stop with")
    port = re.search(r"http://127\.0\.0\.1:(\d+)/", text)
    assert port, text
    return process, f"http://127.0.0.1:{port.group(1)}"


def _users(database: Path) -> set[str]:
    with closing(sqlite3.connect(database)) as connection:
        return {name for (name,) in connection.execute("SELECT name FROM users")}


async def _stop(process: asyncio.subprocess.Process) -> None:
    process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(process.wait(), 30) == 0


async def test_install_upgrade_uninstall(wheel: Path, dependencies: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    await asyncio.to_thread(fresh_venv, root / "opt/agentmail/venv", dependencies)
    output = await asyncio.to_thread(_install, root, "--wheel", str(wheel))

    units = root / "etc/systemd/system"
    gateway_unit, bridge_unit = units / "agentmail.service", units / "agentmail-bridge@.service"
    settings = root / "etc/agentmail/gateway.env"
    data = root / "var/lib/agentmail"
    backups = root / "var/backups/agentmail"  # docs/deploy.md's `agentmail backup` target
    assert gateway_unit.is_file() and bridge_unit.is_file() and data.is_dir()
    assert stat.S_IMODE(settings.stat().st_mode) == 0o640
    assert stat.S_IMODE(backups.stat().st_mode) == 0o700
    assert f"{backups.relative_to(root).as_posix()}/" in (ROOT / "docs/deploy.md").read_text()
    password = _environment(settings)["ADMIN_PASSWORD"]
    assert len(password) >= 24
    assert password not in output  # written to the file only, never to the journal

    unit = _unit(gateway_unit)
    assert unit["Type"] == "notify"
    assert unit["ExecStart"] == f"{root}/opt/agentmail/venv/bin/agentmail serve"
    assert unit["EnvironmentFile"] == str(settings)
    for hardening in (
        "ProtectSystem=strict",
        "ProtectHome=true",
        "PrivateTmp=true",
        "NoNewPrivileges=true",
        f"ReadWritePaths={data}",
    ):
        assert hardening in gateway_unit.read_text().splitlines(), hardening
    lines = gateway_unit.read_text().splitlines()
    assert "CapabilityBoundingSet=" in lines
    assert not any(line.startswith("AmbientCapabilities") for line in lines)  # ports >= 1024
    bridge = _unit(bridge_unit)
    assert bridge["EnvironmentFile"] == f"{root}/etc/agentmail/bridge-%i.env"

    # systemd-analyze verify: the gateway unit, and the template through an instance.
    analyze = await asyncio.to_thread(_systemd_analyze)
    instance = tmp_path / "agentmail-bridge@opencode.service"  # a copy: a link is an alias
    shutil.copy(bridge_unit, instance)
    for path in (gateway_unit, instance):
        verified = await asyncio.to_thread(
            subprocess.run, [analyze, "verify", str(path)], capture_output=True, text=True
        )
        assert verified.returncode == 0 and verified.stderr == "", verified.stderr

    process, base = await _serve(unit)
    try:
        async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as http:
            ready = await http.get("/readyz")
            assert ready.status_code == 200, ready.text
            login = {"username": "admin", "password": password}
            assert (await http.post("/api/v1/auth/login", json=login)).status_code == 200
            user = {"name": "keepme", "password": "password123", "is_admin": False}
            assert (await http.post("/api/v1/admin/users", json=user)).status_code == 201
    finally:
        await _stop(process)

    # A second run upgrades in place: same settings, same data.
    before = settings.read_text()
    output = await asyncio.to_thread(_install, root, "--wheel", str(wheel))
    assert "upgrading" in output and "keeping the settings" in output
    assert settings.read_text() == before
    assert "keepme" in _users(data / "agentmail.db")  # install.sh migrated it: it opens

    await asyncio.to_thread(_install, root, "--uninstall")
    assert not gateway_unit.exists() and not bridge_unit.exists()
    assert not (root / "opt/agentmail").exists()
    assert settings.read_text() == before
    assert (data / "agentmail.db").is_file()

    await asyncio.to_thread(_install, root, "--uninstall", "--purge")
    assert not settings.exists() and not data.exists()
    assert backups.is_dir()  # a purge never deletes backups
