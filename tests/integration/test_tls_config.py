"""`agentmail serve` with TLS settings: the ports it prints, and a clear error (exit 2,
no traceback, nothing opened) for every way the certificate settings can be wrong."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tls import Certificate


@pytest.fixture
def certificate(tmp_path: Path) -> Certificate:
    return Certificate(tmp_path, "127.0.0.1", "localhost")


def _serve(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMAIL_")}
    environment.update(
        {
            "AGENTMAIL_DATA_DIR": str(tmp_path / "data"),
            "AGENTMAIL_HTTP_PORT": "0",
            "AGENTMAIL_SMTP_PORT": "0",
            "DATABASE_URL": "",
            **env,
        }
    )
    return subprocess.run(
        [sys.executable, "-m", "gateway", "serve"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("missing cert", "AGENTMAIL_TLS_CERT="),
        ("garbage cert", "a file is not a PEM certificate or key"),
        ("someone else's key", "the key does not belong to the certificate"),
        ("cert without key", "AGENTMAIL_TLS_CERT is set but AGENTMAIL_TLS_KEY is not"),
        ("smtps without cert", "AGENTMAIL_SMTPS_PORT needs a certificate"),
    ],
)
def test_a_bad_tls_configuration_stops_serve_with_a_clear_error(
    tmp_path: Path, certificate: Certificate, case: str, expected: str
) -> None:
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n")
    other = Certificate(tmp_path / "other", "127.0.0.1") if "key" in case else None
    env = {
        "missing cert": {
            "AGENTMAIL_TLS_CERT": str(tmp_path / "nope.pem"),
            "AGENTMAIL_TLS_KEY": str(certificate.key),
        },
        "garbage cert": {
            "AGENTMAIL_TLS_CERT": str(garbage),
            "AGENTMAIL_TLS_KEY": str(certificate.key),
        },
        "someone else's key": {
            "AGENTMAIL_TLS_CERT": str(certificate.cert),
            "AGENTMAIL_TLS_KEY": str(other.key if other else ""),
        },
        "cert without key": {"AGENTMAIL_TLS_CERT": str(certificate.cert)},
        "smtps without cert": {"AGENTMAIL_SMTPS_PORT": "0"},
    }[case]
    result = _serve(tmp_path, **env)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert expected in " ".join(result.stderr.split()), result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert not (tmp_path / "data").exists()  # stopped before opening anything


async def test_serve_prints_the_tls_ports(tmp_path: Path, certificate: Certificate) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMAIL_")}
    environment.update(
        {
            "AGENTMAIL_DATA_DIR": str(tmp_path / "data"),
            "AGENTMAIL_HTTP_PORT": "0",
            "AGENTMAIL_SMTP_PORT": "0",
            "AGENTMAIL_SMTPS_PORT": "0",
            "AGENTMAIL_TLS_CERT": str(certificate.cert),
            "AGENTMAIL_TLS_KEY": str(certificate.key),
            "AGENTMAIL_BCRYPT_ROUNDS": "4",
            "DATABASE_URL": "",
            "COLUMNS": "200",
        }
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "gateway", "serve", env=environment, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    text = ""
    try:
        async with asyncio.timeout(30):
            while "log in as" not in text:
                line = (await process.stdout.readline()).decode()
                assert line, f"serve ended early: {text}"
                text += line
    finally:
        process.terminate()
        await process.wait()
    smtps = re.search(r"SMTPS\s+127\.0\.0\.1:(\d+)\s+\(submission over implicit TLS", text)
    assert re.search(r"SMTP\s+127\.0\.0\.1:\d+\s+\(submission, AUTH required, STARTTLS\)", text)
    assert smtps and int(smtps.group(1)) > 0, text
