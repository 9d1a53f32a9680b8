"""Every domain error has an IMAP `NO` reply with an RFC 5530 response code."""

from __future__ import annotations

from core import errors
from imap_view.replies import CODES, refusal_for
from tests.unit.test_error_mapping import all_domain_errors

RFC_5530 = {
    b"UNAVAILABLE", b"AUTHENTICATIONFAILED", b"AUTHORIZATIONFAILED", b"EXPIRED",
    b"PRIVACYREQUIRED", b"CONTACTADMIN", b"NOPERM", b"INUSE", b"EXPUNGEISSUED",
    b"CORRUPTION", b"SERVERBUG", b"CLIENTBUG", b"CANNOT", b"LIMIT", b"OVERQUOTA",
    b"ALREADYEXISTS", b"NONEXISTENT",
}  # fmt: skip


def test_every_domain_error_has_an_imap_code() -> None:
    assert set(CODES) == all_domain_errors()
    assert set(CODES.values()) <= RFC_5530


def test_the_reply_is_one_line_with_code_and_reason() -> None:
    response = refusal_for(errors.RateLimited("too many\nnew conversations", retry_after=42))
    assert bytes(response.get_response(b"a1")) == (
        b"a1 NO [UNAVAILABLE] too many new conversations (retry after 42 s)\r\n"
    )
    refused = refusal_for(errors.AuthenticationFailed("wrong user name or password"))
    assert bytes(refused.get_response(b"t")).startswith(b"t NO [AUTHENTICATIONFAILED] wrong")
