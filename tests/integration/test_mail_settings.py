"""GET /me/mail-settings: the bound SMTP/IMAP ports, or the public ones when set.

No storage is involved beyond logging in, so these run on SQLite only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.gateway import Api, running_gateway
from tests.support.http import ok, refused
from tests.support.tls import Certificate

URL = "/api/v1/me/mail-settings"


async def test_the_bound_ports_without_tls(tmp_path: Path) -> None:
    async with running_gateway("", tmp_path / "d") as gateway:
        api = Api(gateway)
        try:
            jianf = await api.human("jianf")
            domain = gateway.settings.domain
            assert ok(await jianf.get(URL)) == {
                "smtp": {
                    "host": "127.0.0.1",
                    "port": gateway.smtp_port,
                    "security": "none",
                    "ports": [{"port": gateway.smtp_port, "security": "none"}],
                },
                "imap": {
                    "host": "127.0.0.1",
                    "port": gateway.imap_port,
                    "security": "none",
                    "ports": [{"port": gateway.imap_port, "security": "none"}],
                },
                "username": "jianf",
                "address": "jianf@",
                "email": f"jianf@{domain}",
            }
            builder = await api.agent("builder")
            refused(await builder.get(URL), 403, "forbidden")
        finally:
            await api.close()


async def test_tls_ports_and_public_settings(tmp_path: Path) -> None:
    certificate = Certificate(tmp_path / "tls", "127.0.0.1", "localhost")
    tls = {"tls_cert": certificate.cert, "tls_key": certificate.key}
    async with running_gateway("", tmp_path / "d", smtps_port=0, imaps_port=0, **tls) as gateway:
        api = Api(gateway)
        try:
            found = ok(await (await api.human("jianf")).get(URL))
            assert found["smtp"]["ports"] == [
                {"port": gateway.smtps_port, "security": "ssl/tls"},
                {"port": gateway.smtp_port, "security": "starttls"},
            ]
            # RFC 8314 §3: implicit TLS is the one to recommend where it is offered.
            assert (found["smtp"]["port"], found["smtp"]["security"]) == (
                gateway.smtps_port,
                "ssl/tls",
            )
            assert (found["imap"]["port"], found["imap"]["security"]) == (
                gateway.imaps_port,
                "ssl/tls",
            )
        finally:
            await api.close()
    public = {"public_host": "mail.example.com", "public_smtp_port": 587, "public_imap_port": 993}
    async with running_gateway("", tmp_path / "d2", host="0.0.0.0", **public) as gateway:
        api = Api(gateway)
        try:
            found = ok(await (await api.human("jianf")).get(URL))
            assert found["smtp"] == {
                "host": "mail.example.com",
                "port": 587,
                "security": "none",
                "ports": [{"port": 587, "security": "none"}],
            }
            assert (found["imap"]["host"], found["imap"]["port"]) == ("mail.example.com", 993)
        finally:
            await api.close()


async def test_a_wildcard_bind_shows_the_host_the_browser_used(tmp_path: Path) -> None:
    async with running_gateway("", tmp_path / "d", host="0.0.0.0") as gateway:
        api = Api(gateway)
        try:
            jianf = await api.human("jianf")
            found = ok(await jianf.get(URL, headers={"Host": f"mail.lan:{gateway.http_port}"}))
            assert found["smtp"]["host"] == "mail.lan" and found["imap"]["host"] == "mail.lan"
            assert found["smtp"]["port"] == gateway.smtp_port
        finally:
            await api.close()


@pytest.mark.parametrize("port", [0, 70000])
def test_public_ports_are_bounded(port: int) -> None:
    from pydantic import ValidationError

    from core.settings import Settings

    with pytest.raises(ValidationError):
        Settings(public_smtp_port=port)
