"""The migration files sort in the order of their chain, so `ls` reads as the history.

A file is named `NN_<revision>_<what>.py`: NN its place in the chain from the first
revision, then the revision id it declares (ids never change; names may).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

VERSIONS = Path(__file__).resolve().parents[2] / "core" / "store" / "migrations" / "versions"
NAME = re.compile(r"^(\d{2})_(\w+?)_\w+\.py$")


def _declared(path: Path) -> tuple[str, str | None]:
    """The file's `revision` and `down_revision`, read without importing it."""
    values: dict[str, str | None] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
                    values[target.id] = node.value.value
    revision = values["revision"]
    assert isinstance(revision, str), path.name
    return revision, values.get("down_revision")


def _chain() -> list[str]:
    """Revision ids from the first to the head; fails on a fork or a gap."""
    parent_of = dict(_declared(path) for path in VERSIONS.glob("*.py"))
    child_of = {parent: child for child, parent in parent_of.items()}
    assert len(child_of) == len(parent_of), "two revisions share a parent"
    chain: list[str] = []
    current = child_of.get(None)
    while current is not None:
        chain.append(current)
        current = child_of.get(current)
    assert len(chain) == len(parent_of), "a revision is not on the chain"
    return chain


def test_file_names_sort_in_chain_order() -> None:
    files = sorted(path.name for path in VERSIONS.glob("*.py"))
    assert [_declared(VERSIONS / name)[0] for name in files] == _chain()


def test_each_file_names_its_place_and_its_revision() -> None:
    for place, name in enumerate(sorted(p.name for p in VERSIONS.glob("*.py")), start=1):
        found = NAME.match(name)
        assert found is not None, name
        assert int(found.group(1)) == place, name
        assert found.group(2) == _declared(VERSIONS / name)[0], name
