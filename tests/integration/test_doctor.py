"""`agentmail doctor`, one line per check with ok/warn/fail and what to do.

Against a running gateway (both backends): its ports are "held by the gateway",
the database answers and the schema is current. Then what it must catch: a port
held by another program, a schema behind the code, an expired certificate.
"""

from __future__ import annotations

import re
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path

import trustme
from sqlalchemy import text

from core.settings import Settings
from gateway.doctor import check_certificate
from gateway.server import Gateway
from tests.support.cli import agentmail


def _lines(output: str) -> dict[str, tuple[str, str]]:
    found = {}
    for line in output.splitlines():
        match = re.match(r"^(ok|warn|fail)\s+(\w+(?: \w+)?)\s{2,}(.*)$", line)
        if match:
            found[match.group(2)] = (match.group(1), match.group(3))
    return found


def _ports(gateway: Gateway) -> dict[str, str]:
    return {
        "AGENTMAIL_HTTP_PORT": str(gateway.http_port),
        "AGENTMAIL_SMTP_PORT": str(gateway.smtp_port),
        "AGENTMAIL_IMAP_PORT": str(gateway.imap_port),
    }


async def test_a_running_gateway_is_healthy(gateway: Gateway, database_url: str) -> None:
    result = await agentmail(
        "doctor", db=database_url, data_dir=gateway.settings.data_dir, env=_ports(gateway)
    )
    lines = _lines(result.output)
    assert result.exit_code == 0, result.output
    for check in ("HTTP port", "SMTP port", "IMAP port"):
        assert lines[check][0] == "ok" and "held by the gateway" in lines[check][1], lines
    assert lines["database"][0] == "ok", lines
    assert lines["migrations"] == ("ok", "the schema is current")
    assert lines["data dir"][0] == "ok" and lines["disk space"][0] == "ok"
    assert lines["domain"][0] == "warn" and "AGENTMAIL_DOMAIN" in lines["domain"][1]
    assert lines["certificate"][0] == "warn"


async def test_doctor_finds_what_would_stop_the_gateway(
    gateway: Gateway, database_url: str
) -> None:
    assert gateway.store is not None
    await gateway.store.write(
        lambda session: session.execute(text("UPDATE alembic_version SET version_num = '0011k'"))
    )
    with socket.create_server(("127.0.0.1", 0)) as other:
        busy = str(other.getsockname()[1])
        env = {**_ports(gateway), "AGENTMAIL_HTTP_PORT": busy}  # no gateway answers there
        result = await agentmail(
            "doctor", db=database_url, data_dir=gateway.settings.data_dir, env=env
        )
    lines = _lines(result.output)
    assert result.exit_code == 1, result.output
    assert lines["HTTP port"][0] == "fail" and "→" in lines["HTTP port"][1], lines
    assert lines["migrations"][0] == "warn" and "agentmail migrate" in lines["migrations"][1]


def test_an_expired_certificate_fails(tmp_path: Path) -> None:
    ca = trustme.CA()
    now = datetime.now(UTC)
    issued = ca.issue_cert(
        "mail.example.com", not_before=now - timedelta(days=90), not_after=now - timedelta(days=1)
    )
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_bytes(b"".join(pem.bytes() for pem in issued.cert_chain_pems))
    issued.private_key_pem.write_to_path(str(key))
    settings = Settings(data_dir=tmp_path, tls_cert=cert, tls_key=key)
    finding = check_certificate(settings)
    assert finding.status == "fail" and "expired" in finding.found, finding
    soon = check_certificate(settings, now=now - timedelta(days=5))
    assert soon.status == "warn", soon
