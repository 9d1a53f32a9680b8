"""docs/architecture.md matches the tree: every part of core/ is named there and exists.

The import rules themselves are import-linter contracts (pyproject.toml, `make imports`).
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
MAX_TOP_MODULES = 8


def subpackages() -> list[str]:
    return sorted(p.parent.name for p in CORE.glob("*/__init__.py"))


def top_modules() -> list[str]:
    return sorted(p.stem for p in CORE.glob("*.py") if p.stem != "__init__")


def tree_block() -> str:
    found = re.search(r"## The tree\n\n```\n(.*?)```", DOC, re.S)
    assert found is not None, "docs/architecture.md has no tree"
    return found.group(1)


def test_every_part_of_core_is_in_the_documented_tree() -> None:
    named = set(re.findall(r"^  (\w+)(?:/|\.py)", tree_block(), re.M))
    assert named == set(subpackages()) | set(top_modules())


def test_core_top_holds_only_the_vocabulary() -> None:
    assert 0 < len(top_modules()) <= MAX_TOP_MODULES


def test_every_subpackage_says_what_lives_there() -> None:
    for name in subpackages():
        docstring = ast.get_docstring(ast.parse((CORE / name / "__init__.py").read_text()))
        assert docstring and "import" in docstring, f"core/{name}/__init__.py"


def test_documented_layers_are_the_contract() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layered,) = [c for c in contracts if c["type"] == "layers"]
    documented = re.search(r"## The layers.*?```\n(.*?)```", DOC, re.S)
    assert documented is not None
    lines = [line.split("(")[0].strip() for line in documented.group(1).splitlines()]
    assert lines == layered["layers"]
    assert layered["exhaustive"] is True
