"""`agentmail doctor`: is this machine ready to run the gateway, or is the running one well?

Each check gives one line: ok, warn or fail, what was found, and for anything
not ok what to do. The checks read the same settings as `serve` (environment
and flags), so `doctor` run with the service's environment file sees what the
service sees. A fail makes the command exit 1 (for scripts and install checks).

Ports: a port the gateway should bind is fine when free, and fine when the
gateway itself holds it (its `/healthz` answers on the HTTP port); anything
else holding it is a fail, since `serve` would not start.
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

import httpx
from sqlalchemy import text
from sqlalchemy.engine import make_url

from core.settings import Settings
from core.store.engine import Store, database_url
from core.store.migrate import pending_migrations
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


def _gateway_answers(host: str, port: int) -> bool:
    shown = f"[{host}]" if ":" in host else host
    try:
        return httpx.get(f"http://{shown}:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def check_ports(settings: Settings) -> list[Finding]:
    wanted = {"HTTP": settings.http_port, "SMTP": settings.smtp_port, "IMAP": settings.imap_port}
    if settings.smtps_port is not None:
        wanted["SMTPS"] = settings.smtps_port
    if settings.imaps_port is not None:
        wanted["IMAPS"] = settings.imaps_port
    ours = _gateway_answers(settings.host, settings.http_port)
    findings = []
    for name, port in wanted.items():
        where = f"{settings.host}:{port}"
        if port == 0:
            findings.append(Finding("ok", f"{name} port", f"{where}: a free port is picked"))
            continue
        try:
            with socket.create_server((settings.host, port), reuse_port=False):
                pass
        except PermissionError:
            findings.append(
                Finding(
                    "fail",
                    f"{name} port",
                    f"{where} needs a privilege",
                    "ports below 1024 need CAP_NET_BIND_SERVICE (install.sh "
                    "adds it to the unit) or a port of 1024 or more",
                )
            )
            continue
        except OSError as error:
            if ours:
                findings.append(Finding("ok", f"{name} port", f"{where} held by the gateway"))
            else:
                findings.append(
                    Finding(
                        "fail",
                        f"{name} port",
                        f"{where}: {error.strerror}",
                        "stop what holds it (ss -ltnp) or choose another port",
                    )
                )
            continue
        findings.append(Finding("ok", f"{name} port", f"{where} is free"))
    return findings


async def _database(settings: Settings) -> list[Finding]:
    url = database_url(settings.database_url, settings.sqlite_path)
    store = Store(url)
    kind = "PostgreSQL" if store.dialect == "postgresql" else f"SQLite at {make_url(url).database}"
    try:
        async with asyncio.timeout(10):
            await store.read(lambda s: s.execute(text("SELECT 1")).scalar())
            missing = await pending_migrations(store)
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
    if missing:
        found.append(
            Finding(
                "warn",
                "migrations",
                f"not applied: {', '.join(sorted(missing))}",
                "run `agentmail migrate` (or start the gateway: it migrates)",
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
    return [
        check_data_dir(settings),
        check_disk(settings),
        *check_ports(settings),
        *check_database(settings),
        check_certificate(settings),
        check_domain(settings),
    ]
