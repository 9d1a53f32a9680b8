"""A bounce comes back to the MX listener: a mail to `mailto:` leaves through the
smarthost (a local aiosmtpd) with its job's bounce address as MAIL FROM; the DSN the
far side's server writes, sent to that address at the MX port, becomes one notice in
the sender's conversation, and the same report again adds none. A report to a bounce
address no job has, and mail that is no report, are taken and dropped."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiosmtplib

from tests.support.gateway import Api, running_gateway
from tests.support.smarthost import smarthost

BOB = "bob@example.com"


def report(to: str, mail_id: str, message_id: str, domain: str) -> bytes:
    """An RFC 3464 delivery status notification, as Postfix's bounce daemon writes one."""
    envid = to.partition("+")[2].partition("@")[0]
    return (
        "From: MAILER-DAEMON@mx.example.com (Mail Delivery System)\r\n"
        f"To: {to}\r\nSubject: Undelivered Mail Returned to Sender\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n'
        "\r\n--B\r\nContent-Type: text/plain\r\n\r\nI'm sorry to have to inform you...\r\n"
        "\r\n--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        f"Reporting-MTA: dns; mx.example.com\r\nOriginal-Envelope-Id: {envid}\r\n\r\n"
        f"Final-Recipient: rfc822; {BOB}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        "Diagnostic-Code: smtp; 550 5.1.1 <bob@example.com>: User unknown\r\n"
        "\r\n--B\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"From: jianf@{domain}\r\nTo: {BOB}\r\nMessage-ID: {message_id}\r\n\r\n--B--\r\n"
    ).encode()


async def test_a_bounce_at_the_mx_port_is_one_notice(database_url: str, tmp_path: Path) -> None:
    async with (
        smarthost() as host,
        running_gateway(
            database_url, tmp_path, smarthost=host.address, smarthost_tls="none", mx_port=0
        ) as gateway,
    ):
        api = Api(gateway)
        try:
            admin = await api.admin()
            jianf = await api.human("jianf")
            on = await admin.patch("/api/v1/admin/users/jianf", json={"outbound_mail": True})
            assert on.status_code == 200, on.text
            sent = await jianf.post(
                "/api/v1/me/mail/send",
                json={"to": f"mailto:{BOB}", "subject": "Hello", "body": "hi"},
            )
            assert sent.status_code == 200, sent.text
            async with asyncio.timeout(30):
                await host.arrived.wait()
            (got,) = host.received
            domain = gateway.settings.domain
            assert got.mail_from.startswith("postmaster+") and got.mail_from.endswith(domain)
            dsn = report(got.mail_from, sent.json()["mail_id"], got.message_id, domain)
            assert gateway.mx_port is not None

            async def deliver(rcpt: str, data: bytes) -> str:
                """Sent as a bounce is: from the null sender (RFC 5321 §4.5.5)."""
                async with aiosmtplib.SMTP(hostname="127.0.0.1", port=gateway.mx_port) as client:
                    _refused, reply = await client.sendmail("", [rcpt], data)
                return reply

            assert "1 notice" in await deliver(got.mail_from, dsn)
            assert "0 notice" in await deliver(got.mail_from, dsn)  # the same report again
            local = got.mail_from.rpartition("@")[0]  # postmaster+<mail id>.<job id>
            other_job = f"{local.rpartition('.')[0]}.999999@{domain}"  # no such job
            assert "0 notice" in await deliver(other_job, report(other_job, "", "<x@y>", domain))
            assert "no failure" in await deliver(got.mail_from, b"Subject: out of office\r\n\r\nx")

            inbox = (await jianf.get("/api/v1/me/mail/inbox")).json()["mails"]
            notices = [m for m in inbox if m["mail_type"] == "notice"]
            assert len(notices) == 1
            body = (await jianf.get(f"/api/v1/me/mail/{notices[0]['mail_id']}")).json()["body"]
            assert BOB in body and "User unknown" in body
        finally:
            await api.close()
