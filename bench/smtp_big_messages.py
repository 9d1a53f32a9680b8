"""Memory and time of big SMTP messages at once: the gateway's RSS before, at its peak and after.

    PYTHONPATH=$PWD .venv/bin/python bench/smtp_big_messages.py [--kind attachment|text|qp]
        [--messages 6] [--database-url postgresql://postgres@127.0.0.1:5432/test]

Starts the gateway as its own process (`python -m gateway serve`, the tree on
`PYTHONPATH`: run it against another tree for before/after pairs) on a fresh data
directory (or a fresh PostgreSQL database), creates the human `alice`, and sends
`--messages` messages of about 24 MB at once, each over its own smtplib
connection: a base64 attachment of 17.8 MB (`attachment`), plain text lines
(`text`) or 18 MB of quoted-printable soft line breaks (`qp`, 4.5 million lines).
It samples the gateway's VmRSS every 50 ms while they are sent and 3 s after the
last `250`. Exit status 1 when a message was refused.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import smtplib
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support import databases
from tests.support.gateway import PASSWORD, Api
from tests.support.serve_process import serve, serve_env

ALICE = "alice@agentmail.localhost"


def _rss_mb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def message(kind: str, number: int) -> bytes:
    head = (
        f"From: {ALICE}\r\nTo: {ALICE}\r\nSubject: big {number}\r\n"
        f"Date: Thu, 03 Dec 2026 08:00:00 +0000\r\nMessage-ID: <big.{number}.{os.getpid()}@x>\r\n"
        "MIME-Version: 1.0\r\n"
    ).encode()
    if kind == "attachment":
        data = base64.encodebytes(os.urandom(17_800_000)).replace(b"\n", b"\r\n")
        return head + (
            b"Content-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\nContent-Type: text/plain"
            b"\r\n\r\nhi\r\n--B\r\nContent-Type: application/octet-stream\r\nContent-Disposition:"
            b" attachment; filename=a.bin\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + data + b"--B--\r\n"
        )  # fmt: skip
    if kind == "text":
        line = b"the quick brown fox jumps over the lazy dog \r\n"
        return head + b"Content-Type: text/plain\r\n\r\n" + line * 520_000
    cte = b"Content-Transfer-Encoding: quoted-printable\r\n"
    return head + b"Content-Type: text/plain\r\n" + cte + b"\r\n" + b"a=\r\n" * 4_500_000


def send(port: int, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=600) as client:
        client.login("alice", PASSWORD)
        client.sendmail(ALICE, [ALICE], raw)


async def run(kind: str, count: int, database_url: str | None) -> int:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/agentmail.db"
        if database_url:
            url = await databases.create_postgres_database()
        served = await serve(serve_env(url, Path(folder) / "data"))
        try:
            api = Api(served)  # type: ignore[arg-type]  # it reads only http_url
            await api.human("alice")
            raws = [message(kind, n) for n in range(count)]
            pid = served.process.pid
            before = peak = _rss_mb(pid)
            started = time.perf_counter()
            sending = asyncio.gather(*(asyncio.to_thread(send, served.smtp_port, r) for r in raws))
            while not sending.done():
                peak = max(peak, _rss_mb(pid))
                await asyncio.sleep(0.05)
            await sending
            took = time.perf_counter() - started
            await asyncio.sleep(3)
            print(
                f"{count} x {len(raws[0]) / 1e6:.1f} MB ({kind}, "
                f"{'PostgreSQL' if database_url else 'SQLite'}): RSS before {before} MB, "
                f"peak {peak} MB, 3 s after {_rss_mb(pid)} MB; all sent in {took:.1f} s"
            )
            await api.close()
        finally:
            await served.stop()
            if database_url:
                await databases.release_postgres_database(url)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=["attachment", "text", "qp"], default="attachment")
    parser.add_argument("--messages", type=int, default=6)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    try:
        return asyncio.run(run(args.kind, args.messages, args.database_url))
    except smtplib.SMTPException as error:
        print(f"refused: {error}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
