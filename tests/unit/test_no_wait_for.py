"""No `asyncio.wait_for` in the gateway's code: on Python 3.11 (Debian 12's, the oldest
we claim) it loses a cancellation that arrives as its inner awaitable finishes, and a
loop written with it then runs on after its task was cancelled, holding the stop that
awaits it. `async with asyncio.timeout(...)` has no such race; `asyncio.wait(...,
timeout=)` waits without cancelling. Found by walking the syntax trees, so a comment
or a string naming it does not count."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "api", "smtp_in", "imap_view", "gateway", "bridges")


def _uses_wait_for(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        named = isinstance(node, ast.Attribute) and node.attr == "wait_for"
        if named and isinstance(node.value, ast.Name) and node.value.id == "asyncio":
            lines.append(node.lineno)
        if isinstance(node, ast.ImportFrom) and node.module == "asyncio":
            lines += [node.lineno for alias in node.names if alias.name == "wait_for"]
    return lines


def test_the_code_uses_asyncio_timeout_not_wait_for() -> None:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            if lines := _uses_wait_for(ast.parse(path.read_text(), str(path))):
                found[str(path.relative_to(ROOT))] = lines
    assert found == {}


def test_the_check_finds_both_spellings() -> None:
    tree = ast.parse("import asyncio\nfrom asyncio import wait_for\nasyncio.wait_for(x, 1)\n")
    assert sorted(_uses_wait_for(tree)) == [2, 3]
