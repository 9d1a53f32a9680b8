"""A mail's subject, and a conversation's: one line of at most 998 characters.

998 is RFC 5322 §2.1.1's line limit (and the column's size); a line break in a
subject would end the header early, so none is taken.
"""

from __future__ import annotations

from typing import Final

from core.errors import FieldProblem, InvalidRequest

MAX_SUBJECT: Final = 998


def one_line(subject: str, field: str = "subject") -> None:
    """InvalidRequest when `subject` (the request's `field`) holds a line break."""
    if "\n" in subject or "\r" in subject:
        raise InvalidRequest("a subject is one line", FieldProblem(field, "format"))


def checked_subject(subject: str, field: str = "subject") -> str:
    """`subject` stripped, or InvalidRequest naming `field` when it is not one short line."""
    subject = subject.strip()
    if len(subject) > MAX_SUBJECT:
        raise InvalidRequest(
            f"a subject is one line of at most {MAX_SUBJECT} characters",
            FieldProblem(field, "too_long", MAX_SUBJECT),
        )
    one_line(subject, field)
    return subject
