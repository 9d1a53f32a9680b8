"""What aiosmtpd reads with `inspect.getmembers` is safe to read on every Python we claim.

aiosmtpd's SMTP protocol lists the members of itself and of its handler when each
connection's protocol is built. On CPython 3.11.0-3.11.3 (Debian 12's python3 is
3.11.2) an instance of a `dataclass(slots=True)` raises there (gh-102069: the new
class keeps the `__weakref__` descriptor of the one it replaced), so every
connection failed before its greeting. This Python may have the fix; the classes
must not need it. tests/integration/test_debian_python.py runs the real thing there.
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

from core.settings import Limits
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from smtp_in.handler import SubmissionHandler
from smtp_in.server import Submission


def _slots_dataclasses(cls: type) -> list[type]:
    return [c for c in cls.__mro__ if dataclasses.is_dataclass(c) and "__slots__" in vars(c)]


def test_no_class_aiosmtpd_introspects_is_a_slots_dataclass() -> None:
    for cls in (SubmissionHandler, Submission):
        assert _slots_dataclasses(cls) == [], cls


async def test_the_handler_lists_its_members(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'agentmail.db'}")
    try:
        handler = SubmissionHandler(
            store, "agentmail.localhost", Limits(), FileBlobs(tmp_path), max_attachment_bytes=1
        )
        names = {name for name, _ in inspect.getmembers(handler)}
        assert {"handle_DATA", "handle_EHLO", "handle_RCPT"} <= names
    finally:
        await store.close()
