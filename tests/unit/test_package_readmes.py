"""Each package's README names every module of the package, and no module it lacks.

A README lists its modules as list items or table rows that start with the module's
name in backticks: `` - `name.py` — … `` or `` | `name.py` | … | ``; a subpackage is
`` `name/` ``. Prose may mention anything. Every package `__init__.py` says in a
docstring what lives there. docs/architecture.md plays this part for core
(tests/unit/test_architecture_doc.py), and bench/README.md names every bench.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP_PACKAGES = ("api", "smtp_in", "imap_view", "bridges", "gateway", "core")
WITH_README = ("api", "smtp_in", "imap_view", "bridges", "gateway")
ENTRY = re.compile(r"^(?:[-*] |\| )`([\w.]+/?)`", re.M)


def modules_of(package: Path) -> set[str]:
    """The package's own modules and subpackages (`__init__` and `__main__` aside)."""
    found = {p.name for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")}
    found |= {p.parent.name + "/" for p in package.glob("*/__init__.py")}
    return found


def packages_with_readme() -> list[Path]:
    found = [ROOT / name for name in WITH_README]
    for name in TOP_PACKAGES:
        found += [p.parent for p in (ROOT / name).glob("**/README.md") if p.parent != ROOT / name]
    return [p for p in found if (p / "__init__.py").exists()]


@pytest.mark.parametrize("package", packages_with_readme(), ids=lambda p: str(p.relative_to(ROOT)))
def test_readme_names_every_module(package: Path) -> None:
    readme = (package / "README.md").read_text(encoding="utf-8")
    named = ENTRY.findall(readme)
    assert len(named) == len(set(named)), f"{package.name}/README.md names a module twice"
    assert set(named) == modules_of(package)


def test_every_package_says_what_lives_there() -> None:
    for name in TOP_PACKAGES:
        for init in sorted((ROOT / name).glob("**/__init__.py")):
            if "node_modules" in init.parts:
                continue
            docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
            assert docstring, f"{init.relative_to(ROOT)} has no docstring"


def test_bench_readme_names_every_bench() -> None:
    """bench/README.md says which goal each bench measures: every file, and no other."""
    readme = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(\w+\.py)`", readme))
    assert named == {p.name for p in (ROOT / "bench").glob("*.py")}
