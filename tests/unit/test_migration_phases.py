"""Every migration says whether the release before it can run against the schema it
leaves: `phase = "expand"` (it only adds) or `"contract"` (it removes or changes what
that release uses), so a rolling upgrade knows which migrations may run while older
replicas still serve (docs/deploy.md, "Rolling upgrades").

An expand migration's `upgrade()` drops and renames nothing; a contract one says, in a
`# Contract:` comment, what it takes away.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

VERSIONS = Path(__file__).resolve().parents[2] / "core" / "store" / "migrations" / "versions"
REMOVING = ("drop_column", "drop_table", "rename_table", "drop_constraint", "new_column_name")


def _phase(tree: ast.Module) -> str | None:
    for node in tree.body:
        named = isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "phase" for t in node.targets
        )
        if named and isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            return str(node.value.value)
    return None


def _upgrade_source(source: str, tree: ast.Module) -> str:
    [upgrade] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "upgrade"]
    return ast.get_source_segment(source, upgrade) or ""


@pytest.mark.parametrize("path", sorted(VERSIONS.glob("*.py")), ids=lambda p: p.name)
def test_each_migration_says_its_phase(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    phase = _phase(tree)
    assert phase in ("expand", "contract"), f"{path.name}: phase = {phase!r}"
    if phase == "expand":
        removed = [word for word in REMOVING if word in _upgrade_source(source, tree)]
        assert removed == [], f"{path.name} is marked expand but its upgrade() has {removed}"
    else:
        assert "# Contract:" in source, f"{path.name}: say what it takes away"


def test_a_removal_in_an_expand_migration_is_found() -> None:
    source = 'phase = "expand"\n\ndef upgrade() -> None:\n    op.drop_column("mails", "raw")\n'
    tree = ast.parse(source)
    assert _phase(tree) == "expand"
    assert "drop_column" in _upgrade_source(source, tree)


def test_the_template_of_new_migrations_has_a_phase() -> None:
    template = (VERSIONS.parent / "script.py.mako").read_text(encoding="utf-8")
    assert 'phase = "expand"' in template
