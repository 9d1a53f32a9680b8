"""The baseline of `smtp_ingest.py`: a bare aiosmtpd server that discards every message.

Served the way `smtp_in/server.py` serves the gateway's SMTP (aiosmtpd's `SMTP`
protocol from `loop.create_server` on a TCP_NODELAY socket, one process, the
standard asyncio loop), with AUTH required and every credential accepted
without a lookup, so the benchmark's clients run exactly the same dialogue
(EHLO, AUTH PLAIN, MAIL, RCPT, DATA) against both servers. `250` is answered
as soon as the message is received; nothing is parsed or stored.

    python bench/_smtp_sink.py --port N
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import socket
import warnings
from typing import Any

from aiosmtpd.smtp import SMTP, AuthResult


class Discard:
    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        return "250 2.0.0 OK: discarded"


def accept_anyone(*_: Any) -> AuthResult:
    return AuthResult(success=True)


def protocol() -> SMTP:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Requiring AUTH while not requiring TLS")
        return SMTP(
            Discard(),
            data_size_limit=26_279_936,
            auth_required=True,
            auth_require_tls=False,
            authenticator=accept_anyone,
            hostname="sink.localhost",
            ident="sink",
        )


async def serve(port: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(1024)
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(protocol, sock=sock)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"sink listening on 127.0.0.1:{port}", flush=True)
    await stop.wait()
    server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    asyncio.run(serve(parser.parse_args().port))


if __name__ == "__main__":
    main()
