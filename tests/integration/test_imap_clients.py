"""Real IMAP clients from Debian against the gateway: curl lists, searches and fetches."""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import pytest

from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import fetched, imap_login

pytestmark = pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")


async def curl(api: Api, path: str, secret: str = PASSWORD) -> bytes:
    url = f"imap://127.0.0.1:{api.gateway.imap_port}/{path}"
    command = ["curl", "--silent", "--show-error", "--max-time", "15", "--user", f"jianf:{secret}"]
    done = await asyncio.to_thread(subprocess.run, [*command, url], capture_output=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_curl_lists_searches_and_fetches(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    body = {"to": "jianf@", "subject": "for curl", "body": "fetched by curl"}
    ok(await builder.post("/api/v1/mail/send", json=body))
    key = await api.user_key(jianf)
    listing = await curl(api, "", key)
    assert b'(\\HasNoChildren \\Sent) "/" Sent' in listing
    assert b'"/" Sessions/for-curl' in listing
    assert await curl(api, "INBOX?SUBJECT%20curl") == b"* SEARCH 1\r\n"
    served = await curl(api, "INBOX;UID=1")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        [entry] = fetched(await imap.uid("FETCH", "1", "(BODY.PEEK[])")).values()
    assert served == entry["BODY[]"]
    assert b"fetched by curl" in served
