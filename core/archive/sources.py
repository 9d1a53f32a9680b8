"""Where `agentmail import` reads messages from: mbox files, Maildir folders, `.eml` files.

A source lists its messages (keys with a label a human can find them by) and
hands out their bytes in batches. Everything touching files runs in a worker
thread (`asyncio.to_thread`): the loop never blocks on the disk. The IMAP source
(core/archive/imap_source.py) has the same shape.

mbox files are read as *mboxrd*: a body line `>From ` (any number of `>`) lost one
`>` when it was written, so it gets it back here; `agentmail export` writes that way
too, so export → import gives back the exact bytes.
"""

from __future__ import annotations

import asyncio
import mailbox
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, cast

__all__ = ["EmlFiles", "MaildirFolder", "MboxFile", "Source", "open_path_source"]

_QUOTED_FROM: Final = re.compile(rb"^>(>*From )", re.MULTILINE)


class Source(ABC):
    """Messages to import, each known by an opaque key."""

    @abstractmethod
    async def keys(self) -> list[str]:
        """Every message, in source order."""

    @abstractmethod
    async def fetch(self, keys: Sequence[str]) -> list[bytes]:
        """The bytes of these messages, in the same order."""

    async def fetch_headers(self, keys: Sequence[str]) -> list[bytes]:
        """Enough of each message for its header (sources may send less than all)."""
        return await self.fetch(keys)

    def label(self, key: str) -> str:
        """Where a message is, for the report."""
        return key

    async def close(self) -> None:
        return None


def mboxrd_unquote(data: bytes) -> bytes:
    return _QUOTED_FROM.sub(rb"\1", data)


class MboxFile(Source):
    def __init__(self, path: Path) -> None:
        self.path = path
        self._box: mailbox.mbox | None = None

    async def keys(self) -> list[str]:
        def scan() -> list[str]:
            self._box = mailbox.mbox(self.path, create=False)
            return [str(key) for key in self._box.iterkeys()]  # reads the file once

        return await asyncio.to_thread(scan)

    async def fetch(self, keys: Sequence[str]) -> list[bytes]:
        box = self._box
        assert box is not None, "keys() first"
        return await asyncio.to_thread(
            lambda: [mboxrd_unquote(cast(Any, box).get_bytes(int(key))) for key in keys]
        )

    def label(self, key: str) -> str:
        return f"{self.path} message {int(key) + 1}"

    async def close(self) -> None:
        if self._box is not None:
            await asyncio.to_thread(self._box.close)


class MaildirFolder(Source):
    """One Maildir folder (`cur/` and `new/`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._box: mailbox.Maildir | None = None

    async def keys(self) -> list[str]:
        def scan() -> list[str]:
            self._box = mailbox.Maildir(self.path, factory=None, create=False)
            return sorted(self._box.keys())

        return await asyncio.to_thread(scan)

    async def fetch(self, keys: Sequence[str]) -> list[bytes]:
        box = self._box
        assert box is not None, "keys() first"
        return await asyncio.to_thread(lambda: [box.get_bytes(key) for key in keys])

    def label(self, key: str) -> str:
        return f"{self.path} {key}"


class EmlFiles(Source):
    """`.eml` files: given one by one, or every `*.eml` under a directory."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)

    async def keys(self) -> list[str]:
        def scan() -> list[str]:
            found: list[str] = []
            for path in self.paths:
                if path.is_dir():
                    found += sorted(str(p) for p in path.rglob("*.eml") if p.is_file())
                else:
                    found.append(str(path))
            return list(dict.fromkeys(found))

        return await asyncio.to_thread(scan)

    async def fetch(self, keys: Sequence[str]) -> list[bytes]:
        return await asyncio.to_thread(lambda: [Path(key).read_bytes() for key in keys])


def _is_maildir(path: Path) -> bool:
    return path.is_dir() and (path / "cur").is_dir() and (path / "new").is_dir()


def _looks_like_mbox(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(5) == b"From "


def open_path_source(paths: Sequence[Path]) -> Source:
    """The source the paths name: one Maildir folder, one mbox file, or `.eml` files.

    A file is an mbox when it starts with an mbox `From ` line, else one message.
    """
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise FileNotFoundError(f"no such file or directory: {', '.join(missing)}")
    if len(paths) == 1 and _is_maildir(paths[0]):
        return MaildirFolder(paths[0])
    if len(paths) == 1 and paths[0].is_file() and _looks_like_mbox(paths[0]):
        return MboxFile(paths[0])
    odd = [str(p) for p in paths if _is_maildir(p) or (p.is_file() and _looks_like_mbox(p))]
    if odd:
        raise ValueError(f"import one mbox file or Maildir folder at a time: {', '.join(odd)}")
    return EmlFiles(paths)
