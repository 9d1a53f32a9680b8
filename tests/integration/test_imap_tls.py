"""IMAP STARTTLS and implicit TLS with a configured certificate (trustme's CA), on both
backends."""

from __future__ import annotations

import asyncio
import imaplib
import ssl
from pathlib import Path

import pytest
import trustme

from core.settings import Settings
from gateway.tls import TlsConfigError, server_tls_context
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.tls import Certificate


def _starttls_login(port: int, client_context: ssl.SSLContext) -> list[bytes]:
    with imaplib.IMAP4("127.0.0.1", port, timeout=15) as client:
        assert "STARTTLS" in client.capabilities
        client.starttls(ssl_context=client_context)
        cipher = client.sock.cipher()  # type: ignore[attr-defined]
        assert cipher is not None
        client.login("jianf", PASSWORD)
        _, data = client.select("INBOX")
        return list(data)


async def test_starttls_with_the_configured_certificate(database_url: str, tmp_path: Path) -> None:
    ca = trustme.CA()
    server_cert = ca.issue_cert("127.0.0.1")
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    server_cert.private_key_pem.write_to_path(str(key_file))
    cert_file.write_bytes(b"".join(blob.bytes() for blob in server_cert.cert_chain_pems))
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    async with running_gateway(
        database_url, tmp_path / "data", tls_cert=cert_file, tls_key=key_file
    ) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            data = await asyncio.to_thread(_starttls_login, gateway.imap_port, client_context)
            assert data == [b"0"]
        finally:
            await api.close()


async def test_no_starttls_without_a_certificate(api: Api) -> None:
    def capabilities() -> tuple[str, ...]:
        with imaplib.IMAP4("127.0.0.1", api.gateway.imap_port, timeout=15) as client:
            return tuple(client.capabilities)

    assert "STARTTLS" not in await asyncio.to_thread(capabilities)


def _implicit_tls_session(port: int, client_context: ssl.SSLContext) -> tuple[list[str], bytes]:
    with imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=client_context, timeout=15) as client:
        capabilities = list(client.capabilities)
        client.login("jianf", PASSWORD)
        client.select("INBOX")
        _, data = client.uid("FETCH", "1", "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        assert isinstance(data[0], tuple), data
        return capabilities, bytes(data[0][1])


async def test_implicit_tls_port_serves_imaps(database_url: str, tmp_path: Path) -> None:
    """RFC 8314 §3.3: TLS from the first byte, with the certificate SMTP uses."""
    certificate = Certificate(tmp_path / "tls", "127.0.0.1")
    async with running_gateway(
        database_url,
        tmp_path / "data",
        tls_cert=certificate.cert,
        tls_key=certificate.key,
        imaps_port=0,
    ) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            builder = await api.agent("builder")
            body = {"to": "jianf@", "subject": "over imaps", "body": "x"}
            assert (await builder.post("/api/v1/mail/send", json=body)).status_code == 200
            assert gateway.imaps_port is not None and gateway.imaps_port != gateway.imap_port
            capabilities, subject = await asyncio.to_thread(
                _implicit_tls_session, gateway.imaps_port, certificate.client_context()
            )
            assert "STARTTLS" not in capabilities and "AUTH=PLAIN" in capabilities
            assert subject.strip() == b"Subject: over imaps"
        finally:
            await api.close()


def test_an_imaps_port_without_a_certificate_is_refused(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, imaps_port=0)
    with pytest.raises(TlsConfigError, match="AGENTMAIL_IMAPS_PORT needs a certificate"):
        server_tls_context(settings)
