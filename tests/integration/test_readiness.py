"""`/readyz` and `agentmail doctor` say whether the listeners serve, not just listen.

Both read SMTP's greeting and EHLO reply and IMAP's greeting from the bound ports
(gateway/listener_probe.py). A listener that accepts connections but serves none
fails both: here SMTP turns every client of 127.0.0.1 away with 421 while one
connection holds its per-address limit (what a listener whose protocol cannot be
built does to everyone is in tests/unit/test_protocol_errors.py, and on Debian's
Python in test_debian_python.py). `/readyz` probes at most once per two seconds
however often it is polled, and logs nothing per probe. `doctor` tells the
gateway's own greeting apart, so a port below 1024 held by the running gateway is
ok even for a user who could not bind it. SQLite only: no storage is involved.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import smtplib
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client import REGISTRY

from gateway.listener_probe import FRESH_SECONDS
from gateway.logs import FLOORS
from gateway.server import Gateway
from tests.support.cli import agentmail
from tests.support.gateway import running_gateway
from tests.support.packaging import ROOT
from tests.support.tls import Certificate


def _url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'agentmail.db'}"


def _ports(gateway: Gateway) -> dict[str, str]:
    return {
        "AGENTMAIL_HTTP_PORT": str(gateway.http_port),
        "AGENTMAIL_SMTP_PORT": str(gateway.smtp_port),
        "AGENTMAIL_IMAP_PORT": str(gateway.imap_port),
    }


async def _readyz_until(client: httpx.AsyncClient, status: int) -> dict[str, str]:
    """The checks of the first `/readyz` with `status` (the probe is cached ~2 s)."""
    async with asyncio.timeout(30):
        while True:
            response = await client.get("/readyz")
            if response.status_code == status:
                checks: dict[str, str] = response.json()["checks"]
                return checks
            await asyncio.sleep(0.2)


async def test_a_listener_that_serves_no_one_fails_readyz_and_doctor(tmp_path: Path) -> None:
    """With the implicit-TLS ports too: those are probed through TLS (SMTPS shares
    SMTP's count of connections per address, so it turns the probe away as well)."""
    certificate = Certificate(tmp_path / "tls", "localhost", "127.0.0.1")
    tls = {"tls_cert": certificate.cert, "tls_key": certificate.key}
    async with (
        running_gateway(
            _url(tmp_path),
            tmp_path / "data",
            smtp_max_connections_per_address=1,
            smtps_port=0,
            imaps_port=0,
            **tls,
        ) as gateway,
        httpx.AsyncClient(base_url=gateway.http_url) as client,
    ):
        env = {
            **_ports(gateway),
            "AGENTMAIL_SMTPS_PORT": str(gateway.smtps_port),
            "AGENTMAIL_IMAPS_PORT": str(gateway.imaps_port),
            "AGENTMAIL_TLS_CERT": str(certificate.cert),
            "AGENTMAIL_TLS_KEY": str(certificate.key),
        }
        holder = await asyncio.to_thread(smtplib.SMTP, "127.0.0.1", gateway.smtp_port)
        try:
            checks = await _readyz_until(client, 503)
            where = f"127.0.0.1:{gateway.smtp_port}"
            assert checks["listeners"].startswith(f"SMTP {where}: no SMTP greeting"), checks
            assert "421" in checks["listeners"] and "IMAP" not in checks["listeners"]
            assert f"SMTPS 127.0.0.1:{gateway.smtps_port}: no SMTP greeting" in checks["listeners"]
            assert checks["database"] == "ok"
            result = await agentmail(
                "doctor", db=_url(tmp_path), data_dir=tmp_path / "data", env=env
            )
            assert result.exit_code == 1, result.output
            lines = {
                found.group(1): found.group(0)
                for found in re.finditer(
                    r"^(?:ok|warn|fail)\s+(\w+ port)\s{2,}.*$", result.output, re.M
                )
            }
            for failing in ("SMTP port", "SMTPS port"):
                assert lines[failing].startswith("fail"), lines
                assert "does not serve them" in lines[failing], lines
            for serving in ("HTTP port", "IMAP port", "IMAPS port"):
                assert lines[serving].startswith("ok") and "held by the gateway" in lines[serving]
        finally:
            await asyncio.to_thread(holder.close)
        assert (await _readyz_until(client, 200))["listeners"] == "ok"


async def test_readyz_probes_seldom_and_logs_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def probes() -> float:
        found = REGISTRY.get_sample_value("agentmail_connections_total", {"protocol": "smtp"})
        return found or 0.0

    async with (
        running_gateway(_url(tmp_path), tmp_path / "data") as gateway,
        httpx.AsyncClient(base_url=gateway.http_url) as client,
    ):
        before, began = probes(), time.monotonic()
        with caplog.at_level(logging.INFO):
            for _ in range(10):
                assert (await client.get("/readyz")).status_code == 200
            answers = await asyncio.gather(*(client.get("/readyz") for _ in range(5)))
        elapsed = time.monotonic() - began
        assert all(answer.status_code == 200 for answer in answers)
    # One probe per listener at most every FRESH_SECONDS, whatever the machine's speed.
    assert 1 <= probes() - before <= 1 + elapsed / FRESH_SECONDS
    logged = [(r.name, r.getMessage()) for r in caplog.records if _logged_by_serve(r)]
    assert logged == []


def _logged_by_serve(record: logging.LogRecord) -> bool:
    """At INFO, with the floors `serve` puts on chatty libraries (gateway/logs.py); the
    test's own HTTP client aside."""
    if record.name.startswith(("httpx", "httpcore")):
        return False
    floors = [
        level
        for name, level in FLOORS.items()
        if record.name == name or record.name.startswith(f"{name}.")
    ]
    return record.levelno >= max([logging.INFO, *floors])


_DOCTOR_AS_NOBODY = """
import encodings.idna, json, os, sys  # as root: nobody may not read the interpreter's files
from core.settings import Settings
from gateway.doctor import check_ports
settings = Settings(**json.loads(sys.argv[1]))
os.setgroups([]); os.setgid(65534); os.setuid(65534)  # imported as root, run as nobody
print(json.dumps([[f.status, f.check, f.found] for f in check_ports(settings)]))
"""


def _free_privileged_port() -> int:
    for port in range(1023, 600, -1):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip("no free port below 1024")


@pytest.mark.skipif(os.geteuid() != 0, reason="binds a port below 1024: needs root")
async def test_doctor_finds_the_gateway_on_a_privileged_port_ok_for_any_user(
    tmp_path: Path,
) -> None:
    port = _free_privileged_port()
    async with running_gateway(_url(tmp_path), tmp_path / "data", smtp_port=port) as gateway:
        settings = {
            "host": "127.0.0.1",
            "http_port": gateway.http_port,
            "smtp_port": port,
            "imap_port": gateway.imap_port,
            "data_dir": str(tmp_path / "data"),
        }
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-c", _DOCTOR_AS_NOBODY, json.dumps(settings)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    found = {check: (status, text) for status, check, text in json.loads(done.stdout)}
    status, text = found["SMTP port"]
    assert status == "ok" and text == f"127.0.0.1:{port} held by the gateway (greeting answered)"
