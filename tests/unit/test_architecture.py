"""The dependency rule of ARCHITECTURE.md: core imports no adapter; adapters not each other."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = {"api", "smtp_in", "imap_view", "bridges"}
LAYERS = {"core", "gateway", *ADAPTERS}


def imported_layers(package: str) -> dict[str, set[str]]:
    """For each module of `package`, the top-level layers it imports."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        layers: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                layers.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                layers.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = layers & LAYERS
    return found


def test_core_imports_no_adapter() -> None:
    offenders = {
        module: layers - {"core"}
        for module, layers in imported_layers("core").items()
        if layers - {"core"}
    }
    assert offenders == {}


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapters_import_only_core(adapter: str) -> None:
    offenders = {
        module: layers - {"core", adapter}
        for module, layers in imported_layers(adapter).items()
        if layers - {"core", adapter}
    }
    assert offenders == {}


def test_the_rule_checker_sees_imports() -> None:
    """Guard against a checker that passes because it finds nothing."""
    assert "core" in set().union(*imported_layers("api").values())
    assert {"api", "core"} <= set().union(*imported_layers("gateway").values())
