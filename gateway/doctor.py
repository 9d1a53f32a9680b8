"""`agentmail doctor`: is this machine ready to run the gateway, or is the running one well?

Each check gives one line: ok, warn or fail, what was found, and for anything
not ok what to do. The checks read the same settings as `serve` (environment
and flags), so `doctor` run with the service's environment file sees what the
service sees. A fail makes the command exit 1 (for scripts and install checks).

Ports: each is probed first as a client would use it (gateway/listener_probe.py):
the gateway's `/healthz` on the HTTP port, its SMTP greeting and EHLO, its IMAP
greeting. A port the gateway serves is fine, whoever may bind it (a port below
1024 held by the running service included). A port that accepts connections but
does not serve them is a fail (a running gateway whose listener closes every
connection, or another program); another server's greeting is a fail too, since
`serve` would not start. A port where nothing listens is fine when this user may
bind it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import ssl
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Literal

from sqlalchemy import text
from sqlalchemy.engine import make_url

from core.settings import Settings
from core.store.engine import Store, database_url
from core.store.migrate import schema_problem
from gateway.listener_probe import Answer, Listener, connect_host, probe_all
from gateway.sockets import mail_listeners
from gateway.tls import TlsConfigError, server_tls_context

Status = Literal["ok", "warn", "fail"]
LOW_DISK_BYTES = 1 << 30  # warn below 1 GiB free
FULL_DISK_BYTES = 100 << 20  # fail below 100 MiB
CERT_WARN_DAYS = 14


@dataclass(frozen=True)
class Finding:
    status: Status
    check: str
    found: str
    todo: str = ""


def check_data_dir(settings: Settings) -> Finding:
    path = settings.data_dir.resolve()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not os.access(existing, os.W_OK):
        return Finding(
            "fail",
            "data dir",
            f"{existing} is not writable by this user",
            "run as the service user, or give it the directory (chown)",
        )
    state = "exists" if path.exists() else "will be created"
    return Finding("ok", "data dir", f"{path} ({state}, writable)")


def check_disk(settings: Settings) -> Finding:
    path = settings.data_dir.resolve()
    existing = next(p for p in (path, *path.parents) if p.exists())
    free = shutil.disk_usage(existing).free
    shown = f"{free / (1 << 30):.1f} GiB free at {existing}"
    if free < FULL_DISK_BYTES:
        return Finding("fail", "disk space", shown, "free space: mail cannot be stored")
    if free < LOW_DISK_BYTES:
        return Finding("warn", "disk space", shown, "free space before mail stops arriving")
    return Finding("ok", "disk space", shown)


def _listeners(settings: Settings) -> list[Listener]:
    ports: dict[str, int | None] = {"SMTP": settings.smtp_port, "IMAP": settings.imap_port}
    ports |= {"SMTPS": settings.smtps_port, "IMAPS": settings.imaps_port}
    http = Listener("HTTP", connect_host(settings.host), settings.http_port)
    return [http, *mail_listeners(settings, ports)]


def _ours(listener: Listener, answer: Answer) -> bool:
    """The gateway's own greeting (imap_view/config.py, smtp_in/server.py) or health."""
    if listener.protocol == "HTTP":
        return answer.greeting.replace(" ", "") == '{"status":"ok"}'
    return "AgentMail" in answer.greeting


def _unheld(settings: Settings, name: str, port: int) -> Finding:
    """Nothing listens on `port`: can `serve` bind it?"""
    where = f"{settings.host}:{port}"
    try:
        with socket.create_server((settings.host, port), reuse_port=False):
            pass
    except PermissionError:
        return Finding(
            "fail",
            f"{name} port",
            f"{where} needs a privilege",
            "ports below 1024 need CAP_NET_BIND_SERVICE (install.sh "
            "adds it to the unit) or a port of 1024 or more",
        )
    except OSError as error:
        return Finding(
            "fail",
            f"{name} port",
            f"{where}: {error.strerror}",
            "stop what holds it (ss -ltnp) or choose another port",
        )
    return Finding("ok", f"{name} port", f"{where} is free")


def check_ports(settings: Settings) -> list[Finding]:
    """Each port: served by the gateway (its greeting read), free to bind, or a fail."""
    wanted = [each for each in _listeners(settings) if each.port != 0]
    answers = asyncio.run(probe_all(wanted))
    findings = []
    for listener in _listeners(settings):
        name, where = listener.name, f"{settings.host}:{listener.port}"
        answer = answers.get(listener)
        if answer is None:
            findings.append(Finding("ok", f"{name} port", f"{where}: a free port is picked"))
        elif answer.ok and _ours(listener, answer):
            served = "/healthz answered" if name == "HTTP" else "greeting answered"
            findings.append(
                Finding("ok", f"{name} port", f"{where} held by the gateway ({served})")
            )
        elif answer.ok:
            findings.append(
                Finding(
                    "fail",
                    f"{name} port",
                    f"{where} is held by another server ({answer.greeting[:80]!r})",
                    "stop what holds it (ss -ltnp) or choose another port",
                )
            )
        elif answer.listening:
            findings.append(
                Finding(
                    "fail",
                    f"{name} port",
                    f"{where} accepts connections but does not serve them: {answer.text}",
                    "if the gateway holds it, its log says why (ERROR lines); "
                    "else stop what holds it (ss -ltnp)",
                )
            )
        else:
            findings.append(_unheld(settings, name, listener.port))
    return findings


async def _database(settings: Settings) -> list[Finding]:
    url = database_url(settings.database_url, settings.sqlite_path)
    store = Store(url)
    kind = "PostgreSQL" if store.dialect == "postgresql" else f"SQLite at {make_url(url).database}"
    try:
        async with asyncio.timeout(10):
            await store.read(lambda s: s.execute(text("SELECT 1")).scalar())
            problem = await schema_problem(store)
    except Exception as error:  # any failure to connect is the finding
        return [
            Finding(
                "fail",
                "database",
                f"{kind}: {type(error).__name__}: {error}"[:300],
                "check DATABASE_URL, that the server runs and accepts this user",
            )
        ]
    finally:
        await store.close()
    found = [Finding("ok", "database", f"{kind} answers")]
    if problem is not None:
        found.append(
            Finding(
                "warn",
                "migrations",
                problem,
                "run `agentmail migrate` (or start the gateway: it migrates), or upgrade this"
                " release when a newer one migrated",
            )
        )
    else:
        found.append(Finding("ok", "migrations", "the schema is current"))
    return found


def check_database(settings: Settings) -> list[Finding]:
    url = make_url(database_url(settings.database_url, settings.sqlite_path))
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").exists():
        return [Finding("ok", "database", f"SQLite at {settings.sqlite_path} (created on start)")]
    return asyncio.run(_database(settings))


def check_certificate(settings: Settings, now: datetime | None = None) -> Finding:
    if settings.tls_cert is None:
        return Finding(
            "warn",
            "certificate",
            "none: SMTP and IMAP offer no TLS",
            "set AGENTMAIL_TLS_CERT and AGENTMAIL_TLS_KEY for clients beyond loopback",
        )
    try:
        server_tls_context(settings)
    except TlsConfigError as error:
        return Finding("fail", "certificate", str(error), "fix the certificate or key files")
    decoded = ssl._ssl._test_decode_cert(str(settings.tls_cert))  # type: ignore[attr-defined]
    expires = parsedate_to_datetime(decoded["notAfter"].replace(" GMT", " +0000"))
    days = (expires - (now or datetime.now(UTC))).total_seconds() / 86400
    shown = f"{settings.tls_cert} expires {expires:%Y-%m-%d}"
    if days < 0:
        return Finding("fail", "certificate", f"{shown}: expired", "renew it, then restart")
    if days < CERT_WARN_DAYS:
        return Finding("warn", "certificate", f"{shown} ({days:.0f} days)", "renew it soon")
    return Finding("ok", "certificate", f"{shown} ({days:.0f} days)")


def check_domain(settings: Settings) -> Finding:
    domain = settings.domain
    if domain.endswith(".localhost") or domain == "localhost":
        return Finding(
            "warn",
            "domain",
            f"{domain} is for this machine only",
            "set AGENTMAIL_DOMAIN to a domain mail clients elsewhere can resolve",
        )
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(domain, None)}
    except socket.gaierror as error:
        host = settings.public_host or "AGENTMAIL_PUBLIC_HOST"
        return Finding(
            "warn",
            "domain",
            f"{domain} does not resolve ({error.strerror})",
            f"add DNS records, or tell clients to connect to {host}",
        )
    return Finding("ok", "domain", f"{domain} resolves to {', '.join(sorted(addresses))}")


def diagnose(settings: Settings) -> list[Finding]:
    from gateway.doctor_blobs import check_object_store  # they import this module's Finding
    from gateway.doctor_outbound import check_outbound

    return [
        check_data_dir(settings),
        check_disk(settings),
        *check_ports(settings),
        *check_database(settings),
        check_certificate(settings),
        check_domain(settings),
        *check_outbound(settings),
        *check_object_store(settings),
    ]
