"""Generated mail archives for the import tests: threads, attachments, broken messages.

Everything is deterministic (a seeded random), and the generator says what it made,
so tests can check the import's summary exactly.
"""

from __future__ import annotations

import base64
import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

DOMAIN = "agentmail.localhost"
PEOPLE = [
    f"alice@{DOMAIN}",
    f"builder+ModelRouter@{DOMAIN}",
    "bob@example.com",
    "Carol.Ext@partner.example.org",
]
START = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@dataclass
class Archive:
    """The messages of an archive, in source order, and what the import should make of them."""

    messages: list[bytes] = field(default_factory=list)
    parent_of: dict[str, str | None] = field(default_factory=dict)  # Message-ID → parent's
    thread_of: dict[str, int] = field(default_factory=dict)  # Message-ID → thread number
    attachments: dict[str, list[bytes]] = field(default_factory=dict)
    broken: int = 0
    repeated: int = 0
    without_id: int = 0
    attachment_count: int = 0  # of the messages that import

    @property
    def importable(self) -> int:
        return len(self.messages) - self.broken - self.repeated


def message(
    message_id: str | None,
    sender: str,
    to: list[str],
    subject: str,
    body: str,
    when: datetime,
    *,
    cc: list[str] | None = None,
    parents: list[str] | None = None,
    attachments: Sequence[tuple[str, bytes]] = (),
) -> bytes:
    """An RFC 5322 message as a mail client writes it (ASCII headers, UTF-8 text,
    attachments base64 in multipart/mixed), built by hand: ten thousand of them
    must not take longer than importing them."""
    head = []
    if message_id is not None:
        head.append(f"Message-ID: {message_id}")
    head += [f"Date: {format_datetime(when)}", f"From: {sender}", f"To: {', '.join(to)}"]
    if cc:
        head.append(f"Cc: {', '.join(cc)}")
    head.append(f"Subject: {subject}")
    if parents:
        head += [f"In-Reply-To: {parents[-1]}", f"References: {' '.join(parents)}"]
    head.append("MIME-Version: 1.0")
    text = [
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: 8bit",
        "",
        body,
    ]
    if not attachments:
        return "\n".join(head + text).encode() + b"\n"
    boundary = "==" + hashlib.sha256(f"{message_id}{subject}{body}".encode()).hexdigest()[:24]
    lines = [*head, f'Content-Type: multipart/mixed; boundary="{boundary}"', "", f"--{boundary}"]
    lines += text
    for name, content in attachments:
        encoded = base64.encodebytes(content).decode().rstrip("\n")
        lines += [
            f"--{boundary}",
            "Content-Type: application/octet-stream",
            "Content-Transfer-Encoding: base64",
            f'Content-Disposition: attachment; filename="{name}"',
            "",
            encoded,
        ]
    lines.append(f"--{boundary}--")
    return "\n".join(lines).encode() + b"\n"


BROKEN = [
    b"Subject: no sender\nTo: bob@example.com\nMessage-ID: <broken-1@x>\n\nwho wrote this?\n",
    b"From: bob@example.com\nSubject: no recipient\nMessage-ID: <broken-2@x>\n\nto nobody\n",
    b"From: not an address at all\nTo: bob@example.com\nMessage-ID: <broken-3@x>\n\nhm\n",
    b"\n\n",
]
BROKEN_REASONS = {
    0: "no From address",
    1: "no To or Cc address",
    2: "From: 'not' is not an address",
    3: "empty message",
}


def generate(total: int, *, seed: int = 7, thread_size: int = 8) -> Archive:
    """`total` messages: threads of up to `thread_size` (a reply sometimes before its
    parent in the file), every 25th with an attachment, every 100th broken, every
    200th repeated, every 150th root without a Message-ID."""
    rng = random.Random(seed)
    archive = Archive()
    out: list[bytes] = []
    good: list[bytes] = []  # earlier messages that import (what a repeat copies)
    thread = 0
    while len(out) < total:
        thread += 1
        ids: list[str] = []
        base = START + timedelta(hours=thread)
        size = min(rng.randint(1, thread_size), total - len(out))
        chunk: list[bytes] = []
        for n in range(size):
            index = len(out) + len(chunk)
            if index % 100 == 99:
                kind = (index // 100) % len(BROKEN)
                chunk.append(BROKEN[kind].replace(b"<broken-", f"<b{index}-".encode()))
                archive.broken += 1
                continue
            if index % 200 == 150 and good:
                chunk.append(good[rng.randrange(len(good))])
                archive.repeated += 1
                continue
            no_id = n == 0 and index % 150 == 0
            message_id = None if no_id else f"<t{thread}.m{n}.{index}@archive.example>"
            sender, *others = rng.sample(PEOPLE, 3)
            files = []
            if index % 25 == 0:
                files = [(f"data-{index % 7}.bin", bytes(rng.getrandbits(8) for _ in range(300)))]
            raw = message(
                message_id,
                sender,
                [others[0]],
                f"Thread {thread}: {'Re: ' if n else ''}plan number {thread}",
                f"Message {n} of thread {thread}.\n\nFrom the archive; line two.\n",
                base + timedelta(minutes=n),
                cc=[others[1]] if n % 2 else None,
                parents=ids[-3:] if ids else None,
                attachments=files,
            )
            archive.attachment_count += len(files)
            if message_id is None:
                archive.without_id += 1
            else:
                archive.parent_of[message_id] = ids[-1] if ids else None
                archive.thread_of[message_id] = thread
                archive.attachments[message_id] = [content for _, content in files]
                ids.append(message_id)
            chunk.append(raw)
            good.append(raw)
        if len(chunk) > 2 and rng.random() < 0.3:  # a reply filed before its parent
            chunk[1], chunk[2] = chunk[2], chunk[1]
        out += chunk
    archive.messages = out
    return archive


def write_mbox(path: Path, messages: list[bytes]) -> None:
    """An mbox (mboxrd quoting) as mail clients write them."""
    with path.open("wb") as file:
        for raw in messages:
            body = raw.replace(b"\nFrom ", b"\n>From ")
            file.write(b"From MAILER-DAEMON Sat Mar  1 09:00:00 2025\n" + body)
            file.write(b"" if body.endswith(b"\n") else b"\n")
            file.write(b"\n")
