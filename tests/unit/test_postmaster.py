"""The postmaster's notices (core/approvals/postmaster.py): their words and their rendering."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy

from core.address import POSTMASTER, party_address
from core.approvals.postmaster import NOTICE, already_settled_notice
from core.mail.reading import mail_view
from core.rendering.render import render_mail
from core.store.models import Mail

D = "mail.test"
DECIDED_AT = datetime(2026, 11, 30, 10, 15, tzinfo=UTC)


def _request(**fields: object) -> Mail:
    values: dict[str, object] = {
        "id": "r1",
        "seq": 1,
        "session_id": "s1",
        "from_name": "builder",
        "from_path": "ModelRouter",
        "to_name": "jianf",
        "to_path": "",
        "cc": [],
        "subject": "May I deploy?",
        "body": "May I deploy?",
        "mail_type": "permission_request",
        "auto": False,
        "message_id": "<r1@mail.test>",
        "created_at": DECIDED_AT,
        "options": ["approve", "reject"],
    }
    values.update(fields)
    return Mail(**values)


def test_the_notice_says_what_was_decided_by_whom_and_when() -> None:
    request = _request(
        permission_state="decided",
        decision="approve",
        decided_by="alice",
        decided_at=DECIDED_AT,
        decision_note="go\nahead",
    )
    subject, body = already_settled_notice(request)
    assert subject == "Already decided: May I deploy?"
    for line in (
        "Decision: approve",
        "Decided by: alice",
        "Decided at: 2026-11-30T10:15:00Z",
        "Note: go ahead",
    ):
        assert line in body.splitlines()


def test_the_notice_says_when_the_request_expired() -> None:
    subject, body = already_settled_notice(
        _request(permission_state="expired", expires_at=DECIDED_AT)
    )
    assert subject == "Expired: May I deploy?"
    assert "it expired at 2026-11-30T10:15:00Z without a decision" in body


def test_a_long_subject_still_fits() -> None:
    subject, _ = already_settled_notice(_request(subject="x" * 998, permission_state="expired"))
    assert len(subject) == 998


def test_a_notice_is_signed_by_the_bare_postmaster_address() -> None:
    """Neither user nor agent: no conversation alias in its address, auto-submitted."""
    notice = _request(
        id="n1",
        from_name=POSTMASTER,
        from_path="",
        mail_type=NOTICE,
        auto=True,
        options=None,
        message_id="<n1@mail.test>",
    )
    message = message_from_bytes(render_mail(notice, "deploy", D), policy=policy.default)
    assert message["From"] == f"postmaster <postmaster@{D}>"
    assert message["Reply-To"] == f"postmaster <postmaster@{D}>"
    assert message["To"] == f"jianf <jianf++deploy@{D}>"
    assert message["Auto-Submitted"] == "auto-generated"
    view = mail_view(notice, "deploy", D, agents={})
    assert (view.from_, view.from_email, view.to) == (
        "postmaster@",
        f"postmaster@{D}",
        "jianf@.deploy",
    )
    assert (
        party_address("builder", "ModelRouter", "deploy").native() == "builder@ModelRouter.deploy"
    )
