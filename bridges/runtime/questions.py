"""A platform's question to the human, as a mail and back.

The question mail lists the choices numbered when the platform offers some, as a
permission request does, so a reply of `2` from a phone picks the second. The
answer is the reply's own text: quoted lines (`> …`) and the client's "On … wrote:"
line above them are dropped, since mail clients quote the question under the
answer (RFC 3676 §4.5 quoting).
"""

from __future__ import annotations

import re

_ATTRIBUTION = re.compile(r"^(on\b.*wrote:|.*schrieb:|le .* a écrit\s*:)\s*$", re.IGNORECASE)


def question_body(text: str, options: list[str]) -> str:
    if not options:
        return text
    numbered = "\n".join(f"{index}. {option}" for index, option in enumerate(options, 1))
    return f"{text}\n\n{numbered}\n\nReply with a number or with your own answer."


def answer_of(body: str, options: list[str]) -> str:
    """The human's answer: the reply without what it quotes; a choice's number or text
    given back as the choice itself."""
    lines = [line for line in body.replace("\r\n", "\n").split("\n") if not line.startswith(">")]
    while lines and (not lines[-1].strip() or _ATTRIBUTION.match(lines[-1].strip())):
        lines.pop()
    answer = "\n".join(lines).strip()
    if options and "\n" not in answer:
        choice = answer.rstrip(".")
        if choice.isdigit() and 1 <= int(choice) <= len(options):
            return options[int(choice) - 1]
        for option in options:
            if choice.lower() == option.lower():
                return option
    return answer
