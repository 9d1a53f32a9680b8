"""IMAP STARTTLS with a configured certificate (trustme's CA), on both backends."""

from __future__ import annotations

import asyncio
import imaplib
import ssl
from pathlib import Path

import trustme

from tests.support.gateway import PASSWORD, Api, running_gateway


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
