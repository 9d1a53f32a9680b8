"""Bounces read: RFC 3464 reports (as Postfix writes them), the non-standard ones the
flufl.bounce detectors know, what is no bounce, our envelope ids and bounce addresses,
and hostile input (hypothesis: never an exception, bounded parts)."""

from __future__ import annotations

from email.message import EmailMessage

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.relay.bounces import MAX_BYTES, read_bounce
from core.relay.envelope import (
    EnvelopeId,
    bounce_address,
    envelope_id_in_address,
    parse_envelope_id,
)

MAIL_ID = "0b6c3f7e-1c2d-4e5f-8a9b-0123456789ab"
ENVELOPE = EnvelopeId(MAIL_ID, 42)
D = "agentmail.test"


def dsn(
    action: str = "failed",
    status: str = "5.1.1",
    recipient: str = "bob@example.com",
    envid: str | None = f"{MAIL_ID}.42",
    returned: str = "text/rfc822-headers",
) -> bytes:
    """A delivery status notification as Postfix's bounce daemon writes one."""
    envelope = f"Original-Envelope-Id: {envid}\r\n" if envid else ""
    original = (
        f"From: jianf@{D}\r\nTo: {recipient}\r\nSubject: Hello\r\n"
        f"Message-ID: <{MAIL_ID}@{D}>\r\n\r\n"
    )
    returned_part = original if returned == "text/rfc822-headers" else original + "Hi\r\n"
    return (
        "From: MAILER-DAEMON@mx.example.com (Mail Delivery System)\r\n"
        f"To: postmaster+{MAIL_ID}.42@{D}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n'
        "\r\n--B\r\nContent-Type: text/plain\r\n\r\nI'm sorry to have to inform you...\r\n"
        "\r\n--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        f"Reporting-MTA: dns; mx.example.com\r\n{envelope}"
        "Arrival-Date: Fri,  4 Dec 2026 12:00:00 +0000 (UTC)\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\nOriginal-Recipient: rfc822;{recipient}\r\n"
        f"Action: {action}\r\nStatus: {status}\r\n"
        "Remote-MTA: dns; inbox.example.com\r\n"
        "Diagnostic-Code: smtp; 550 5.1.1 <bob@example.com>: Recipient address\r\n"
        "    rejected: User unknown\r\n"
        f"\r\n--B\r\nContent-Type: {returned}\r\n\r\n{returned_part}\r\n--B--\r\n"
    ).encode()


def test_an_rfc_3464_report_gives_recipient_status_diagnostic_and_ids() -> None:
    bounce = read_bounce(dsn())
    assert bounce is not None
    assert bounce.envelope_id == ENVELOPE and bounce.message_id == f"<{MAIL_ID}@{D}>"
    assert bounce.reporter == "mx.example.com"
    (failed,) = bounce.recipients
    assert (failed.address, failed.status) == ("bob@example.com", "5.1.1")
    assert failed.diagnostic == (
        "550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown"
    )


def test_the_returned_message_gives_the_message_id_and_the_address_the_envelope() -> None:
    raw = dsn(envid=None, returned="message/rfc822")
    bounce = read_bounce(raw, envelope_recipient=f"<postmaster+{MAIL_ID}.42@{D}>")
    assert bounce is not None
    assert bounce.message_id == f"<{MAIL_ID}@{D}>" and bounce.envelope_id == ENVELOPE
    assert read_bounce(raw) is not None and read_bounce(raw).envelope_id is None  # type: ignore[union-attr]


def test_delays_deliveries_and_other_mail_are_no_bounce() -> None:
    assert read_bounce(dsn(action="delayed", status="4.4.1")) is None
    assert read_bounce(dsn(action="delivered", status="2.0.0")) is None
    vacation = EmailMessage()
    vacation["From"] = "bob@example.com"
    vacation["Subject"] = "Out of office"
    vacation["Auto-Submitted"] = "auto-replied"
    vacation.set_content("I am away until Monday.\n")
    assert read_bounce(vacation.as_bytes()) is None
    assert read_bounce(b"") is None


def test_a_non_standard_bounce_is_read_by_the_detectors() -> None:
    qmail = (
        "From: MAILER-DAEMON@example.net\r\nTo: postmaster+x@agentmail.test\r\n"
        "Subject: failure notice\r\n\r\n"
        "Hi. This is the qmail-send program at example.net.\r\n"
        "I'm afraid I wasn't able to deliver your message to the following addresses.\r\n"
        "This is a permanent error; I've given up. Sorry it didn't work out.\r\n\r\n"
        "<carol@example.net>:\r\n"
        "550 5.1.1 sorry, no mailbox here by that name\r\n\r\n"
        "--- Below this line is a copy of the message.\r\n\r\n"
        f"Message-ID: <{MAIL_ID}@{D}>\r\nSubject: Hello\r\n\r\nHi\r\n"
    ).encode()
    bounce = read_bounce(qmail)
    assert bounce is not None
    (failed,) = bounce.recipients
    assert failed.address == "carol@example.net" and failed.status == "5.1.1"
    assert failed.diagnostic.startswith("550 5.1.1 sorry")
    assert bounce.message_id == f"<{MAIL_ID}@{D}>" and bounce.envelope_id is None


def test_envelope_ids_and_bounce_addresses() -> None:
    address = bounce_address(ENVELOPE, D)
    assert address == f"postmaster+{MAIL_ID}.42@{D}"
    assert len(bounce_address(EnvelopeId(MAIL_ID, 10**16 - 1), D).partition("@")[0]) == 64
    assert envelope_id_in_address(f"<{address.upper()}>", D) == ENVELOPE
    assert envelope_id_in_address(address, "other.test") is None
    assert envelope_id_in_address(f"jianf+{MAIL_ID}.42@{D}", D) is None
    assert envelope_id_in_address(f"postmaster@{D}", D) is None
    assert parse_envelope_id(f"{MAIL_ID}.{10**16}") is None
    assert parse_envelope_id("not-an-id.1") is None


def test_a_deeply_nested_message_is_bounded() -> None:
    depth = 5000
    head = "".join(
        f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(depth)
    )
    raw = ("Subject: nested\r\nMIME-Version: 1.0\r\n" + head).encode()
    assert read_bounce(raw) is None


def test_only_the_head_of_a_huge_report_is_read() -> None:
    huge = dsn(returned="message/rfc822").replace(b"Hi\r\n", b"x" * (4 * MAX_BYTES) + b"\r\n")
    bounce = read_bounce(huge)
    assert bounce is not None and bounce.recipients[0].address == "bob@example.com"


_FIELD_LINES = st.sampled_from(
    [
        b"Action: failed\r\n",
        b"Status: 5.7.1\r\n",
        b"Final-Recipient: rfc822; x@example.com\r\n",
        b"Final-Recipient: \r\n",
        b"Original-Envelope-Id: \xff\xfe\r\n",
        b"Diagnostic-Code: smtp; 550\r\n",
        b"Content-Type: message/delivery-status\r\n",
        b"Content-Type: multipart/report; boundary=B\r\n",
        b"Content-Type: message/rfc822\r\n",
        b"Content-Transfer-Encoding: base64\r\n",
        b"--B\r\n",
        b"--B--\r\n",
        b"\r\n",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_FIELD_LINES, st.binary(max_size=40)), max_size=60))
def test_hostile_reports_never_raise(lines: list[bytes]) -> None:
    bounce = read_bounce(b"".join(lines), envelope_recipient="postmaster+\xff@x")
    if bounce is not None:
        assert 0 < len(bounce.recipients) <= 100
        assert all(len(r.diagnostic) <= 500 for r in bounce.recipients)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes_spliced_into_a_report_never_raise(noise: bytes) -> None:
    raw = dsn()
    cut = len(noise) % len(raw)
    read_bounce(raw[:cut] + noise + raw[cut:])
