"""One Python floor, said the same everywhere, and install.sh refusing what is below it.

pyproject's `requires-python` is the floor: Debian 12's own python3 (3.11.2), on
which tests/integration/test_debian_python.py runs the installed wheel. README,
docs/deploy.md, install.sh and the Makefile state that very version.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _floor() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = re.fullmatch(r">=(\d+\.\d+\.\d+)", project["requires-python"])
    assert found, project["requires-python"]
    return found.group(1)


def test_every_statement_of_the_floor_is_the_same() -> None:
    floor = _floor()
    assert floor == "3.11.2"  # Debian 12's python3: raising it drops the platform we deploy on
    as_tuple = f"({floor.replace('.', ', ')})"
    assert f"Python ≥ {floor}," in (ROOT / "README.md").read_text()
    assert f"Python {floor} or newer" in (ROOT / "docs" / "deploy.md").read_text()
    for script in ("deploy/install.sh", "Makefile"):
        text = (ROOT / script).read_text()
        assert f"sys.version_info < {as_tuple}" in text, script
        assert f"Python {floor} or newer is needed" in text, script
        assert not re.search(r"version_info < \(3, 11\)", text), script


def test_install_refuses_a_python_below_the_floor(tmp_path: Path) -> None:
    """A Python that reports 3.11.1 (the real interpreter, told it is older)."""
    older = tmp_path / "python3.11.1"
    older.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then echo "Python 3.11.1"; exit 0; fi\n'
        "exec python3 -c \"import sys; sys.version_info = (3, 11, 1, 'final', 0); "
        'exec(sys.argv[1])" "$2"\n'
    )
    older.chmod(0o755)
    install = ROOT / "deploy" / "install.sh"
    done = subprocess.run(
        ["bash", str(install), "--root", str(tmp_path / "root"), "--python", str(older)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Python 3.11.2 or newer is needed (found Python 3.11.1)" in done.stderr, done.stderr
    assert not (tmp_path / "root" / "opt").exists()
