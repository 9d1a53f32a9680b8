"""The compat modules: each check passes with the installed libraries, fails naming the
library's version when an internal is gone, and no other module reaches a library's
private names (pymap's: only those `pymap_compat.INTERNALS` lists and checks)."""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path

import pytest
from aiosmtpd.smtp import SMTP
from fastapi import routing
from pymap.fetch import MessageAttributes
from pymap.parsing.specials import SequenceSet

from api import fastapi_compat
from core.archive import aioimaplib_compat
from imap_view import pymap_compat
from smtp_in import aiosmtpd_compat

ROOT = Path(__file__).resolve().parents[2]
CHECKS: list[Callable[[], None]] = [
    fastapi_compat.check,
    aiosmtpd_compat.check,
    pymap_compat.check,
]


@pytest.mark.parametrize("check", CHECKS, ids=["fastapi", "aiosmtpd", "pymap"])
def test_the_installed_libraries_have_every_internal_used(check: Callable[[], None]) -> None:
    check()


@pytest.mark.parametrize(
    ("owner", "name", "check", "error", "library"),
    [
        (
            SMTP,
            "_create_envelope",
            aiosmtpd_compat.check,
            aiosmtpd_compat.InternalMissing,
            "aiosmtpd",
        ),
        (SMTP, "_timeout_cb", aiosmtpd_compat.check, aiosmtpd_compat.InternalMissing, "aiosmtpd"),
        (
            routing,
            "iter_route_contexts",
            fastapi_compat.check,
            fastapi_compat.InternalMissing,
            "fastapi",
        ),
        (
            SequenceSet,
            "_get_range",
            pymap_compat.check,
            pymap_compat.InternalMissing,
            "pymap",
        ),
        (
            MessageAttributes,
            "_simple_attrs",
            pymap_compat.check,
            pymap_compat.InternalMissing,
            "pymap",
        ),
    ],
)
def test_a_missing_internal_fails_the_check_with_the_version(
    monkeypatch: pytest.MonkeyPatch,
    owner: object,
    name: str,
    check: Callable[[], None],
    error: type[Exception],
    library: str,
) -> None:
    monkeypatch.delattr(owner, name)
    with pytest.raises(error) as raised:
        check()
    message = str(raised.value)
    assert f"{library} {version(library)}" in message.replace("FastAPI", "fastapi")
    assert name in message


def test_a_moved_instance_attribute_fails_the_pymap_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An attribute pymap sets in `__init__` is found in its source; renamed there, the
    check names it."""
    monkeypatch.setitem(
        pymap_compat.INTERNALS, "pymap.selected:SynchronizedMessages", ("_sorted_uids",)
    )
    with pytest.raises(pymap_compat.InternalMissing, match=r"SynchronizedMessages\._sorted_uids"):
        pymap_compat.check()


def _library_privates(package: str) -> set[str]:
    """The private names a library defines in its classes (methods, attributes, class
    fields) and at module level, its own tests left out."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.origin is not None
    names: set[str] = set()
    for path in Path(spec.origin).parent.rglob("*.py"):
        if "tests" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _private_uses(path: Path) -> Iterator[tuple[str, int]]:
    """Private names a module reads or writes as attributes, defines as methods, or
    imports (a private name, or a name from a private module)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute):
            yield node.attr, node.lineno
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield item.name, item.lineno
        elif isinstance(node, ast.ImportFrom) and node.module:
            private_module = any(part.startswith("_") for part in node.module.split("."))
            for alias in node.names:
                if private_module and not node.module.startswith("__"):
                    yield f"{node.module}.{alias.name}", node.lineno
                elif alias.name.startswith("_"):
                    yield alias.name, node.lineno


def _offending(folder: str, package: str, allowed: set[str], compat: str) -> list[str]:
    privates = _library_privates(package)
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if path.name == compat:
            continue
        for name, line in _private_uses(path):
            if name.startswith(f"{package}.") or (name in privates and name not in allowed):
                found.append(f"{path.relative_to(ROOT)}:{line} {name}")
    return found


# Our own attributes that happen to share a name with a private one of the library.
_OWN_IN_API = {"_headers", "_name", "_value"}  # api/uploads.py's multipart callbacks
_OWN_IN_IMAP = {
    "_address",  # envelope.py's own method
    "_command",  # contents.py, connection.py: their own fields
    "_count",
    "_highest",  # mailbox.py's own method
    "_keys",
    "_mailbox_set",  # session.py's own field
    "_owner",
    "_parse_list",  # condstore_parsing.py's own helper
    "_separator",
    "_state",
    "_tokens",
}


def test_no_module_of_api_reaches_fastapi_or_starlette_internals_outside_compat() -> None:
    for package in ("fastapi", "starlette"):
        assert _offending("api", package, _OWN_IN_API, "fastapi_compat.py") == []


def test_no_module_of_smtp_in_reaches_aiosmtpd_internals_outside_compat() -> None:
    assert _offending("smtp_in", "aiosmtpd", set(), "aiosmtpd_compat.py") == []


def test_aioimaplibs_internal_is_there() -> None:
    aioimaplib_compat.check()


def test_no_module_of_core_archive_reaches_aioimaplib_internals_outside_compat() -> None:
    own = {"_client", "_connect", "_fetch", "_lost", "_password", "_context"}
    assert _offending("core/archive", "aioimaplib", own, "aioimaplib_compat.py") == []


def test_every_pymap_internal_used_is_listed_and_checked() -> None:
    listed = {name for names in pymap_compat.INTERNALS.values() for name in names}
    listed |= {where.replace(":", ".") for where in pymap_compat.INTERNALS}
    listed |= {where.partition(":")[2] for where in pymap_compat.INTERNALS}
    assert _offending("imap_view", "pymap", listed | _OWN_IN_IMAP, "pymap_compat.py") == []


# The data internals pymap_compat gives functions for: read nowhere else.
_REACHED_THROUGH_COMPAT = {
    "_sorted",
    "_cache",
    "_uids",
    "_seqs_cache",
    "_flags_key_map",
    "_flags_key_set",
    "_get_range",
    "_untagged",
    "_mergeable",
    "_get_data",
    "_get_loaded",
    "_fix_join_arg",
}


def test_pymaps_data_internals_are_reached_only_through_compat() -> None:
    found = []
    for path in sorted((ROOT / "imap_view").rglob("*.py")):
        if path.name != "pymap_compat.py":
            found += [
                f"{path.name}:{line} {name}"
                for name, line in _private_uses(path)
                if name in _REACHED_THROUGH_COMPAT
            ]
    assert found == []
