"""Reading a decision out of a reply to a permission request (docs/deciding-by-mail.md).

The rendered request lists its options, numbered (core/rendering/render.py). A reply
decides when the first line of its new text names one of them: an option's text
(case-insensitive, white space collapsed), else its number, written `1`, `1.`,
`1)`, `(1)`, `[1]` or `#1`. Text wins over number, so an option whose text is
`2` is chosen by `2`. Everything after that line is the note.

New text is found here as well as by the SMTP parser, so this stands on its own:
quoted lines (`>`, RFC 3676 §4.5) are skipped, and reading stops at the
attribution line a client writes above the quote ("On ... wrote:"), at an
Outlook "Original Message" separator and at the signature separator `-- `
(RFC 3676 §4.3). Pure and total: it never raises (property-tested).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["Answer", "decision_from_reply", "named_option", "new_text_lines", "reply_answer"]

# `#1`, `(1)`, `[1]`, `1`, `1.`, `1)`; at most 4 digits, so int() is always cheap.
_NUMBER_RE: Final = re.compile(
    r"#\s*(\d{1,4})|\(\s*(\d{1,4})\s*\)|\[\s*(\d{1,4})\s*\]|(\d{1,4})[.)]?"
)
_ATTRIBUTION_RE: Final = re.compile(
    r"(?:On|Le|Am|El|Il|Op|Em|Den)\s.*"
    r"(?:wrote|a écrit|schrieb|escribió|ha scritto|schreef|escreveu|skrev)\s*:"
    r"|在.*写道\s*[:\uff1a]",
    re.IGNORECASE | re.DOTALL,
)
_SEPARATOR_RE: Final = re.compile(r"-{2,}\s*original message\s*-{2,}|_{10,}", re.IGNORECASE)
_SIGNATURE: Final = ("-- ", "--")


def _is_quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _ends_new_text(lines: Sequence[str], i: int) -> bool:
    """Whether line i starts the quoted history or the signature.

    An attribution may be folded over two lines (Gmail does), so line i is also
    tried joined with the next one.
    """
    line = lines[i].strip()
    if lines[i] in _SIGNATURE or _SEPARATOR_RE.fullmatch(line):
        return True
    if _ATTRIBUTION_RE.fullmatch(line):
        return True
    if i + 1 < len(lines) and not line.endswith(":"):
        joined = f"{line} {lines[i + 1].strip()}"
        return bool(_ATTRIBUTION_RE.fullmatch(joined))
    return False


def new_text_lines(text: str) -> list[str]:
    """The lines of new text: quoted lines dropped, up to the quoted history or signature."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    for i, line in enumerate(lines):
        if _ends_new_text(lines, i):
            break
        if not _is_quoted(line):
            kept.append(line)
    return kept


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


def named_option(options: Sequence[str], line: str) -> str | None:
    """The option `line` names by its text, else by its number; None if none."""
    line = line.strip()
    wanted = _folded(line)
    for option in options:
        if _folded(option) == wanted:
            return option
    number = _NUMBER_RE.fullmatch(line)
    if number is not None:
        index = int(next(group for group in number.groups() if group is not None))
        if 1 <= index <= len(options):
            return options[index - 1]
    return None


@dataclass(frozen=True, slots=True)
class Answer:
    """A reply read up front, before its request's options are known."""

    first_line: str  # the first non-empty line of new text, stripped
    note: str | None  # the new text after it, stripped; None if empty


def reply_answer(text: str) -> Answer | None:
    """The first line of the reply's new text and the rest; None if it has no new text."""
    lines = new_text_lines(text)
    for i, line in enumerate(lines):
        if line.strip():
            note = "\n".join(lines[i + 1 :]).strip()
            return Answer(line.strip(), note or None)
    return None


def decision_from_reply(options: Sequence[str], text: str) -> tuple[str, str | None] | None:
    """The option a reply chooses and its note (None if empty); None if it chooses none."""
    answer = reply_answer(text)
    if answer is None:
        return None
    option = named_option(options, answer.first_line)
    return None if option is None else (option, answer.note)
