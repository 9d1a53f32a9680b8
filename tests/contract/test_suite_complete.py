"""Every store operation of core is called by a contract scenario.

A store operation is a public `async def` of core whose first parameter is
`store: Store` and that writes: it calls `store.write`, or calls a function of core
that does, followed through core's imports by name (a nested function's calls count
as its enclosing function's). The calls of the contract modules are collected the
same way; an operation none of them calls fails this test by name. Read-only
operations are left out by the same rule, so no list of them is kept; migrations
(`Store.run_on_connection`) are tests/integration/test_migrations.py's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = Path(__file__).resolve().parent
Name = tuple[str, str]  # (module, function)

# Operations reached only through another that a scenario calls: each is checked to be
# called by it. The import's batch is one step of `import_messages`, its only caller.
THROUGH: dict[Name, Name] = {
    ("core.archive.write", "write_batch"): ("core.archive.importing", "import_messages"),
}


@dataclass
class Module:
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    imported: dict[str, Name] = field(default_factory=dict)  # local name → (module, name)
    modules: dict[str, str] = field(default_factory=dict)  # local name → module


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _read(path: Path) -> Module:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = Module()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            module.functions[node.name] = node
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                local = alias.asname or alias.name
                if _is_module(f"{node.module}.{alias.name}"):
                    module.modules[local] = f"{node.module}.{alias.name}"
                else:
                    module.imported[local] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    module.modules[alias.asname] = alias.name
    return module


CORE = {
    _module_name(path): _read(path)
    for path in sorted((ROOT / "core").rglob("*.py"))
    if "migrations" not in path.parts
}


def _resolve(module: str, name: str) -> Name | None:
    """The core function `name` means in `module`, through re-exports."""
    for _ in range(10):
        found = CORE.get(module)
        if found is None:
            return None
        if name in found.functions:
            return module, name
        if name not in found.imported:
            return None
        module, name = found.imported[name]
    return None


def _calls(module: Module, node: ast.AST, here: str) -> Iterator[Name]:
    """The core functions `node` calls."""
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        target: Name | None = None
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in module.functions:
                target = (here, func.id)
            elif func.id in module.imported:
                target = _resolve(*module.imported[func.id])
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in module.modules
        ):
            target = _resolve(module.modules[func.value.id], func.attr)
        if target is not None:
            yield target


def _writes_itself(node: ast.AST) -> bool:
    return any(
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "write"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "store"
        for call in ast.walk(node)
    )


def _graph() -> dict[Name, set[Name]]:
    return {
        (name, function): set(_calls(module, node, name))
        for name, module in CORE.items()
        for function, node in module.functions.items()
    }


def _writers(graph: dict[Name, set[Name]]) -> set[Name]:
    writers = {
        (name, function)
        for name, module in CORE.items()
        for function, node in module.functions.items()
        if _writes_itself(node)
    }
    while True:
        more = {caller for caller, callees in graph.items() if callees & writers} - writers
        if not more:
            return writers
        writers |= more


def _takes_the_store(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    args = node.args.posonlyargs + node.args.args
    return (
        bool(args)
        and args[0].arg == "store"
        and args[0].annotation is not None
        and ast.unparse(args[0].annotation) == "Store"
    )


def store_operations() -> set[Name]:
    """The public `async def`s of core that take the store first and write."""
    writers = _writers(_graph())
    return {
        (name, function)
        for name, module in CORE.items()
        for function, node in module.functions.items()
        if isinstance(node, ast.AsyncFunctionDef)
        and not function.startswith("_")
        and _takes_the_store(node)
        and (name, function) in writers
    }


def called_by_scenarios() -> set[Name]:
    called: set[Name] = set()
    for path in sorted(CONTRACT.glob("*.py")):
        if path.name == Path(__file__).name:
            continue
        called |= set(_calls(_read(path), ast.parse(path.read_text()), _module_name(path)))
    return called


def test_the_detection_finds_what_it_should() -> None:
    """Writers found through a helper and a re-export, and readers left out."""
    operations = store_operations()
    assert ("core.mail.send", "send_mail") in operations
    assert ("core.mail.drafts", "send_draft") in operations  # through send_mail
    assert ("core.identity.accounts", "logout") in operations  # through revoke_token
    assert ("core.identity.keys", "authenticate") in operations  # a one-time key is used up
    assert ("core.mail.reading", "get_mail") not in operations
    assert ("core.store.events", "events_after") not in operations


def test_every_store_operation_is_called_by_a_contract_scenario() -> None:
    graph = _graph()
    for operation, caller in THROUGH.items():
        assert operation in graph[caller], f"{caller} no longer calls {operation}"
    missing = store_operations() - called_by_scenarios() - set(THROUGH)
    assert not missing, "no contract scenario calls: " + ", ".join(
        f"{module}.{function}" for module, function in sorted(missing)
    )
