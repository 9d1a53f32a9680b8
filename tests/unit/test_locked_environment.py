"""The virtualenv is the lock: every installed distribution at its locked version, no more.

`make` builds `.venv` from requirements/dev.txt and the service's virtualenv is
installed from requirements/runtime.txt (docs/deploy.md, "Dependencies"). A venv
that drifted from the lock (a package upgraded by hand, a lock changed without
`make`) runs other library code than CI ran, and the private internals we reach
into may have moved: this test says so, package by package. It reads the running
interpreter's distributions (`importlib.metadata`), so it needs no network.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[2]
DEV_LOCK = ROOT / "requirements" / "dev.txt"
RUNTIME_LOCK = ROOT / "requirements" / "runtime.txt"
OURS = "agentmail-gateway"  # installed editable from the checkout, not from the lock
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
# Libraries whose private internals the code reaches into: each range has an upper bound.
INTERNALS_TOUCHED = ("fastapi", "starlette", "sqlalchemy", "pymap", "aiosmtpd", "uvicorn")


def _name(raw: str) -> str:
    """The normalized project name of PEP 503, as pip compares names."""
    return re.sub(r"[-_.]+", "-", raw).lower()


def locked(path: Path) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        found = PIN.match(line)
        if found:
            pins[_name(found.group(1))] = found.group(2)
    return pins


def installed() -> dict[str, str]:
    """Name → version of what this interpreter imports (the first one on sys.path wins)."""
    found: dict[str, str] = {}
    for distribution in importlib.metadata.distributions():
        found.setdefault(_name(distribution.metadata["Name"]), distribution.version)
    found.pop(OURS, None)
    return found


def differences(lock: dict[str, str], environment: dict[str, str]) -> list[str]:
    lines = []
    for name in sorted(lock.keys() | environment.keys()):
        want, have = lock.get(name), environment.get(name)
        if want == have:
            continue
        if have is None:
            lines.append(f"  missing:     {name}=={want}")
        elif want is None:
            lines.append(f"  not locked:  {name}=={have}")
        else:
            lines.append(f"  other version: {name} {have} installed, {want} locked")
    return lines


def _project() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return {"runtime": project["dependencies"], "test": extras["test"], "claude": extras["claude"]}


def test_the_environment_is_exactly_the_lock() -> None:
    lock = locked(DEV_LOCK)
    assert len(lock) > 50, f"{DEV_LOCK} pins {len(lock)} packages: not a pip-compile output?"
    drift = differences(lock, installed())
    assert not drift, (
        f"the environment of {sys.prefix} is not {DEV_LOCK.relative_to(ROOT)}:\n"
        + "\n".join(drift)
        + "\nmake it anew from the lock: rm -f .venv/.installed && make .venv/.installed"
    )


def test_every_locked_release_installs_on_the_floor_python() -> None:
    """Debian 12's python3 (pyproject's requires-python) is what install.sh deploys on:
    a locked release that requires a later Python would not install there. The installed
    distributions are the locked ones (the test above), so their metadata tells."""
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    lowest = floor.removeprefix(">=")
    lock = locked(DEV_LOCK)
    refused = [
        f"{distribution.metadata['Name']}=={distribution.version} needs Python {needs}"
        for distribution in importlib.metadata.distributions()
        if _name(distribution.metadata["Name"]) in lock
        and (needs := distribution.metadata.get("Requires-Python"))
        and not SpecifierSet(needs).contains(lowest, prereleases=True)
    ]
    assert not refused, f"not installable on Python {lowest}: {refused}; make lock resolves there"


def test_the_diff_names_each_kind_of_drift() -> None:
    lock = {"fastapi": "0.165.0", "pymap": "0.36.7", "same": "1"}
    environment = {"fastapi": "0.166.0", "extra-thing": "2.0", "same": "1"}
    assert differences(lock, environment) == [
        "  not locked:  extra-thing==2.0",
        "  other version: fastapi 0.166.0 installed, 0.165.0 locked",
        "  missing:     pymap==0.36.7",
    ]


def test_the_runtime_lock_is_the_dev_lock_without_the_extras() -> None:
    """install.sh's lock pins the same versions as the one CI tests with."""
    runtime, dev = locked(RUNTIME_LOCK), locked(DEV_LOCK)
    assert runtime, RUNTIME_LOCK
    assert {name: dev.get(name) for name in runtime} == runtime
    test_only = {_name(Requirement(r).name) for r in _project()["test"]} - {
        _name(Requirement(r).name) for r in _project()["runtime"]
    }
    assert "pytest" in test_only and not test_only & runtime.keys()


@pytest.mark.parametrize("group", ["runtime", "test", "claude"])
def test_every_range_of_pyproject_admits_its_locked_version(group: str) -> None:
    """A range edited in pyproject.toml without `make lock` afterwards fails here."""
    lock = locked(RUNTIME_LOCK if group == "runtime" else DEV_LOCK)
    for line in _project()[group]:
        requirement = Requirement(line)
        version = lock.get(_name(requirement.name))
        assert version is not None, f"{requirement.name} is not in the lock: run make lock"
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{requirement} does not admit the locked {version}: run make lock"
        )


def test_libraries_whose_internals_we_touch_have_an_upper_bound() -> None:
    ranges = {_name(Requirement(r).name): Requirement(r) for r in _project()["runtime"]}
    for name in INTERNALS_TOUCHED:
        operators = {spec.operator for spec in ranges[name].specifier}
        assert operators & {"<", "==", "~="}, f"{ranges[name]} has no upper bound"


def _dry_run(tree: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    done = subprocess.run(
        ["make", "--dry-run", ".venv/.installed"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_makefile_makes_the_venv_anew_when_the_lock_changes(tmp_path: Path) -> None:
    """`make --dry-run` on a copy of the Makefile: up to date, then the lock is newer."""
    for name in ("Makefile", "pyproject.toml", "requirements/dev.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    stamp = tmp_path / ".venv" / ".installed"
    stamp.parent.mkdir()
    stamp.touch()
    now = stamp.stat().st_mtime
    for name in ("pyproject.toml", "requirements/dev.txt"):
        os.utime(tmp_path / name, (now - 60, now - 60))
    assert "is up to date" in _dry_run(tmp_path)

    os.utime(tmp_path / "requirements/dev.txt", (now + 60, now + 60))
    commands = _dry_run(tmp_path)
    assert "-m venv --clear .venv" in commands
    assert "pip install -q --require-hashes -r requirements/dev.txt" in commands
    assert "pip install -q --no-deps --no-build-isolation -e ." in commands
