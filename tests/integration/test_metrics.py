"""`/metrics` parses as Prometheus text and its counters move with traffic.

The metrics are process-wide (core/metrics.py), so the test compares a
scrape before with a scrape after its own traffic: REST and SMTP mails accepted,
refusals by reason over REST and SMTP, SMTP/IMAP/SSE connections, the latency
histograms, and the open permission requests (read from the database at scrape).
Who may scrape: loopback and `AGENTMAIL_METRICS_ALLOW`, else an admin.
"""

from __future__ import annotations

import smtplib
from pathlib import Path

import httpx
import pytest

from tests.support import smtp
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.imap import imap_login
from tests.support.metrics import moved, scrape, value
from tests.support.sse import open_stream


async def test_counters_move_with_traffic(api: Api) -> None:
    human = await api.human("jianf")
    agent = await api.agent("builder")
    anonymous = api.client()
    before = await scrape(anonymous)

    async with open_stream(human) as stream:
        sent = await agent.post(
            "/api/v1/mail/send", json={"to": "jianf@", "subject": "metrics", "body": "hello"}
        )
        assert sent.status_code == 200, sent.text
        await stream.next_of("new_mail")
        during = await scrape(anonymous)
        assert value(during, "agentmail_connections_open", protocol="sse") >= 1
    unknown = await agent.post(
        "/api/v1/mail/send", json={"to": "jianf@.no-such-alias", "subject": "x", "body": "y"}
    )
    assert unknown.status_code == 422, unknown.text
    asked = await agent.post(
        "/api/v1/permission/request", json={"to": "jianf@", "question": "May I deploy?"}
    )
    assert asked.status_code == 200, asked.text
    mail = smtp.message(f"jianf@{smtp.D}", f"builder+ModelRouter@{smtp.D}", "by smtp")
    await smtp.send(api, "jianf", PASSWORD, mail)
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        await smtp.send(api, "jianf", PASSWORD, smtp.message(f"jianf@{smtp.D}", f"nobody@{smtp.D}"))
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")

    after = await scrape(anonymous)
    assert moved(before, after, "agentmail_mails_accepted_total", entrance="rest") == 2
    assert moved(before, after, "agentmail_mails_accepted_total", entrance="smtp") == 1
    assert moved(before, after, "agentmail_send_commit_seconds_count", entrance="rest") == 2
    assert moved(before, after, "agentmail_send_commit_seconds_count", entrance="smtp") == 1
    assert moved(before, after, "agentmail_commit_push_seconds_count", channel="sse") >= 1
    rest_refusals = {
        labels: after[(name, labels)] - before.get((name, labels), 0.0)
        for name, labels in after
        if name == "agentmail_refusals_total" and ("entrance", "rest") in labels
    }
    assert rest_refusals[(("entrance", "rest"), ("reason", "unknown_alias"))] >= 1, rest_refusals
    smtp_refusals = [
        dict(labels)["reason"]
        for name, labels in after
        if name == "agentmail_refusals_total"
        and ("entrance", "smtp") in labels
        and moved(before, after, name, **dict(labels)) > 0
    ]
    assert any(reason.startswith("550 5.1.") for reason in smtp_refusals), smtp_refusals
    for protocol in ("smtp", "imap", "sse"):
        assert moved(before, after, "agentmail_connections_total", protocol=protocol) >= 1
    assert value(after, "agentmail_open_permission_requests") == 1
    assert "agentmail_database_retries_total" in {name for name, _ in after}


async def test_only_loopback_allowed_networks_or_admins_scrape(tmp_path: Path) -> None:
    """A client address from a trusted proxy's X-Forwarded-For stands for a remote one."""
    remote = {"X-Forwarded-For": "203.0.113.7"}
    url = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(url, tmp_path / "data", trusted_proxies="127.0.0.1") as gateway:
        api = Api(gateway)
        try:
            human = await api.human("jianf")
            admin = await api.admin()
            outsider = api.client()
            assert (await outsider.get("/metrics", headers=remote)).status_code == 401
            assert (await human.get("/metrics", headers=remote)).status_code == 403
            assert (await admin.get("/metrics", headers=remote)).status_code == 200
            assert (await outsider.get("/metrics")).status_code == 200  # loopback
        finally:
            await api.close()
    allowed = {"trusted_proxies": "127.0.0.1", "metrics_allow": "203.0.113.0/24"}
    async with (
        running_gateway(url, tmp_path / "data", **allowed) as gateway,
        httpx.AsyncClient(base_url=gateway.http_url) as client,
    ):
        assert (await client.get("/metrics", headers=remote)).status_code == 200
        other = {"X-Forwarded-For": "198.51.100.1"}
        assert (await client.get("/metrics", headers=other)).status_code == 401
