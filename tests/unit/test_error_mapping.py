"""Every domain error has an HTTP mapping and a documented code."""

from __future__ import annotations

import inspect
from pathlib import Path

from api.errors import HTTP_CODES, STATUS
from core import errors
from smtp_in.replies import REPLIES as SMTP_REPLIES
from smtp_in.replies import reply_for as smtp_reply_for

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def all_domain_errors() -> set[type[errors.DomainError]]:
    return {
        obj
        for obj in vars(errors).values()
        if inspect.isclass(obj)
        and issubclass(obj, errors.DomainError)
        and obj is not errors.DomainError
    }


def test_the_registry_lists_every_domain_error() -> None:
    assert set(errors.ALL_DOMAIN_ERRORS) == all_domain_errors()


def test_every_domain_error_has_a_status() -> None:
    assert set(STATUS) == all_domain_errors()
    # The client's fault (4xx), except a full disk or an object store away: the
    # server's, and they pass (507, 503).
    assert {c: s for c, s in STATUS.items() if not 400 <= s < 500} == {
        errors.StorageFull: 507,
        errors.StorageUnavailable: 503,
    }


def test_codes_are_unique_snake_case_and_documented() -> None:
    codes = [cls.code for cls in all_domain_errors()]
    assert len(codes) == len(set(codes))
    text = DOCS.read_text(encoding="utf-8")
    for code in [*codes, *HTTP_CODES.values(), "malformed_json", "internal_error"]:
        assert code.replace("_", "").isalnum() and code == code.lower()
        assert f"`{code}`" in text, f"error code {code} is not documented in docs/api.md"


def test_every_domain_error_has_an_smtp_reply() -> None:
    assert set(SMTP_REPLIES) == all_domain_errors()
    for code, enhanced in SMTP_REPLIES.values():
        assert 400 <= code < 600 and enhanced[0] == str(code)[0]
    assert SMTP_REPLIES[errors.RateLimited] == (451, "4.7.1")
    assert SMTP_REPLIES[errors.BudgetExhausted] == (550, "5.7.1")
    assert SMTP_REPLIES[errors.UnknownAlias] == (550, "5.1.1")
    reply = smtp_reply_for(errors.RateLimited("too many\nnew conversations", retry_after=42))
    assert reply == "451 4.7.1 too many new conversations (try again in 42 s)"
    # A message that already says when is not told twice.
    said = smtp_reply_for(errors.RateLimited("slow down: try again in 42 s", retry_after=42))
    assert said == "451 4.7.1 slow down: try again in 42 s"
