"""SMTP with TLS: STARTTLS on the submission port, implicit TLS on the SMTPS port, and
plaintext AUTH refused off loopback (RFC 3207, RFC 8314, RFC 4954 §4), on both backends.

The certificate comes from `trustme` (a throwaway CA the clients are told to trust).
"""

from __future__ import annotations

import asyncio
import smtplib
import ssl
import subprocess
from collections.abc import AsyncIterator
from email.message import EmailMessage
from pathlib import Path

import aiosmtplib
import pytest
from sqlalchemy import select

from core.store.models import Mail
from gateway.server import Gateway
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.tls import Certificate, non_loopback_ipv4

D = "agentmail.localhost"
BUILDER = f"builder+ModelRouter@{D}"


OFF_LOOPBACK = non_loopback_ipv4()


@pytest.fixture
def certificate(tmp_path: Path) -> Certificate:
    hosts = ["127.0.0.1", "localhost", *([OFF_LOOPBACK] if OFF_LOOPBACK else [])]
    return Certificate(tmp_path / "tls", *hosts)


async def _tls_gateway(
    database_url: str, tmp_path: Path, certificate: Certificate, host: str = "127.0.0.1"
) -> AsyncIterator[Api]:
    async with running_gateway(
        database_url,
        tmp_path / "data",
        host=host,
        tls_cert=certificate.cert,
        tls_key=certificate.key,
        smtps_port=0,
    ) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            await api.agent("builder")
            yield api
        finally:
            await api.close()


@pytest.fixture
async def tls_api(
    database_url: str, tmp_path: Path, certificate: Certificate
) -> AsyncIterator[Api]:
    async for api in _tls_gateway(database_url, tmp_path, certificate):
        yield api


def _message(subject: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = f"jianf@{D}"
    message["To"] = BUILDER
    message["Subject"] = subject
    message.set_content("over TLS")
    return message


async def _subjects(gateway: Gateway) -> list[str]:
    assert gateway.store is not None
    return list(
        await gateway.store.read(lambda s: s.scalars(select(Mail.subject).order_by(Mail.seq)).all())
    )


def _starttls_then_send(host: str, port: int, context: ssl.SSLContext) -> tuple[bool, bool]:
    with smtplib.SMTP(host, port, timeout=10) as client:
        client.ehlo()
        offered = client.has_extn("starttls")
        client.starttls(context=context)
        client.ehlo()
        offered_again = client.has_extn("starttls")
        client.login("jianf", PASSWORD)
        client.send_message(_message("starttls smtplib"))
    return offered, offered_again


def _implicit_tls_send(port: int, context: ssl.SSLContext) -> bool:
    with smtplib.SMTP_SSL("127.0.0.1", port, timeout=10, context=context) as client:
        client.ehlo()
        client.login("jianf", PASSWORD)
        client.send_message(_message("implicit smtplib"))
        return client.has_extn("starttls")


async def test_starttls_then_auth_and_send_with_smtplib(
    tls_api: Api, certificate: Certificate
) -> None:
    gateway = tls_api.gateway
    offered, offered_again = await asyncio.to_thread(
        _starttls_then_send, "127.0.0.1", gateway.smtp_port, certificate.client_context()
    )
    assert (offered, offered_again) == (True, False)
    assert await _subjects(gateway) == ["starttls smtplib"]


async def test_implicit_tls_port_with_smtplib(tls_api: Api, certificate: Certificate) -> None:
    gateway = tls_api.gateway
    assert gateway.smtps_port is not None and gateway.smtps_port != gateway.smtp_port
    offers_starttls = await asyncio.to_thread(
        _implicit_tls_send, gateway.smtps_port, certificate.client_context()
    )
    assert offers_starttls is False  # already encrypted: RFC 8314 §3.3
    assert await _subjects(gateway) == ["implicit smtplib"]


async def test_aiosmtplib_start_tls_and_use_tls(tls_api: Api, certificate: Certificate) -> None:
    gateway = tls_api.gateway
    assert gateway.smtps_port is not None
    context = certificate.client_context()
    await aiosmtplib.send(
        _message("aiosmtplib start_tls"),
        hostname="127.0.0.1",
        port=gateway.smtp_port,
        start_tls=True,
        tls_context=context,
        username="jianf",
        password=PASSWORD,
    )
    await aiosmtplib.send(
        _message("aiosmtplib use_tls"),
        hostname="127.0.0.1",
        port=gateway.smtps_port,
        use_tls=True,
        tls_context=context,
        username="jianf",
        password=PASSWORD,
    )
    assert await _subjects(gateway) == ["aiosmtplib start_tls", "aiosmtplib use_tls"]


async def test_a_client_that_does_not_trust_the_certificate_gets_nowhere(tls_api: Api) -> None:
    untrusting = ssl.create_default_context()  # the trustme CA is not in it
    with pytest.raises(aiosmtplib.SMTPConnectError):
        await aiosmtplib.send(
            _message("never"),
            hostname="127.0.0.1",
            port=tls_api.gateway.smtps_port,
            use_tls=True,
            tls_context=untrusting,
            username="jianf",
            password=PASSWORD,
        )
    assert await _subjects(tls_api.gateway) == []


@pytest.mark.skipif(OFF_LOOPBACK is None, reason="this machine has no non-loopback IPv4 address")
async def test_plaintext_auth_off_loopback_is_538_until_starttls(
    database_url: str, tmp_path: Path, certificate: Certificate
) -> None:
    """The gateway listens on a real interface address and the client connects to it,
    so the peer the server sees is that address, not 127.0.0.1."""
    assert OFF_LOOPBACK is not None
    async for api in _tls_gateway(database_url, tmp_path, certificate, host=OFF_LOOPBACK):
        client = aiosmtplib.SMTP(hostname=OFF_LOOPBACK, port=api.gateway.smtp_port, timeout=10)
        await client.connect(start_tls=False)
        try:
            with pytest.raises(aiosmtplib.SMTPAuthenticationError) as refused:
                await client.login("jianf", PASSWORD)
            assert refused.value.code == 538
            assert "5.7.11" in refused.value.message
            await client.starttls(tls_context=certificate.client_context())
            await client.login("jianf", PASSWORD)
            await client.send_message(_message("after starttls"))
        finally:
            await client.quit()
        assert await _subjects(api.gateway) == ["after starttls"]


@pytest.mark.skipif(OFF_LOOPBACK is None, reason="this machine has no non-loopback IPv4 address")
async def test_plaintext_auth_off_loopback_when_explicitly_allowed(
    database_url: str, tmp_path: Path
) -> None:
    assert OFF_LOOPBACK is not None
    async with running_gateway(
        database_url, tmp_path / "data", host=OFF_LOOPBACK, smtp_allow_plaintext_auth=True
    ) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            await api.agent("builder")
            await aiosmtplib.send(
                _message("allowed in the clear"),
                hostname=OFF_LOOPBACK,
                port=gateway.smtp_port,
                start_tls=False,
                username="jianf",
                password=PASSWORD,
            )
        finally:
            await api.close()
        assert await _subjects(gateway) == ["allowed in the clear"]


@pytest.mark.parametrize("flag", ["--tls", "--tlsc"])
async def test_swaks_starttls_and_tls_on_connect(tls_api: Api, flag: str) -> None:
    """The commands docs/smtp.md (TLS) gives (swaks does not verify the certificate)."""
    gateway = tls_api.gateway
    port = gateway.smtp_port if flag == "--tls" else gateway.smtps_port
    command = ["swaks", "--server", f"127.0.0.1:{port}", flag, "--auth", "PLAIN"]
    command += ["--auth-user", "jianf", "--auth-password", PASSWORD]
    command += ["--from", f"jianf@{D}", "--to", BUILDER, "--header", f"Subject: swaks {flag}"]
    result = await asyncio.to_thread(
        subprocess.run,
        command,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "=== TLS started" in result.stdout
    assert await _subjects(gateway) == [f"swaks {flag}"]
