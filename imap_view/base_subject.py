"""The base subject of RFC 5256 §2.1: what SORT SUBJECT orders by and THREAD groups by.

A subject is decoded (RFC 2047) and case-mapped (imap_view/casemap.py), its runs of
white space made one space (step 1); then the reply and forward marks clients add are
taken off, in the RFC's order:

    (2) trailers `(fwd)` and white space;  (3) leaders `Re:`, `Fw:`, `Fwd:`, each
    optionally after blobs (`[list]`) and with a blob before its colon, and white
    space;  (4) a leading blob, unless nothing would be left;  (5) (3) and (4) again
    until neither applies;  (6) `[fwd: …]` around the whole, then from (2) again.

Whether a leader, a trailer or `[fwd: …]` was taken off is the "reply or forward"
mark THREAD=REFERENCES uses (§3, step 5). The steps follow Dovecot 2.3
(src/lib-imap/imap-base-subject.c), the differential test's oracle, which reads the
ABNF as the text is after step 1: case-mapped (so `RE`, `FWD`) and one space at most
wherever the ABNF has `*WSP`.

Every step only moves the two ends inward, so the work is linear in the subject: a run
of blobs with no leader after it is crossed once, not once per blob (Dovecot scans it
again after each blob it takes off, which a subject of 30,000 `[]` makes quadratic).
"""

from __future__ import annotations

import re

from core.mime.header_decoding import decode_words
from imap_view.casemap import casemap

__all__ = ["base_subject", "packed"]

_WHITE = re.compile(r"[ \t\r\n]+")
_LEADERS = ("RE", "FWD", "FW")  # subj-refwd; FWD before FW: the longer one first


def packed(subject: str) -> str:
    """Step (1): encoded-words decoded, case-mapped, white space runs made one space."""
    return _WHITE.sub(" ", casemap(decode_words(subject)))


def _blob_end(text: str, position: int, end: int) -> int:
    """subj-blob at `position`: `[` *BLOBCHAR `]` and one space at most; where it ends,
    or -1 when there is none."""
    if position >= end or text[position] != "[":
        return -1
    close = position + 1
    while close < end and text[close] not in "[]":
        close += 1
    if close >= end or text[close] != "]":
        return -1
    close += 1
    return close + 1 if close < end and text[close] == " " else close


def _blob_run(text: str, position: int, end: int) -> tuple[int, int]:
    """The blobs from `position` on: (where the run ends, where its last blob starts)."""
    last = position
    while (after := _blob_end(text, position, end)) != -1:
        last, position = position, after
    return position, last


def _refwd_end(text: str, position: int, end: int) -> int:
    """subj-refwd at `position`: `RE`/`FWD`/`FW`, a space, a blob, then `:`; where it
    ends, or -1."""
    for leader in _LEADERS:
        if text.startswith(leader, position, end):
            position += len(leader)
            break
    else:
        return -1
    if position < end and text[position] == " ":
        position += 1
    if position < end and text[position] == "[":
        position = _blob_end(text, position, end)
        if position == -1:
            return -1
    return position + 1 if position < end and text[position] == ":" else -1


def _leaders(text: str, start: int, end: int) -> tuple[int, bool]:
    """Steps (3) to (5) from `start`: where the subject starts after them, and whether
    a reply or forward leader was among what they took off."""
    reply = False
    while True:
        moved = False
        if start < end and text[start] == " ":  # (3): subj-leader = WSP
            start, moved = start + 1, True
        run_end, last_blob = _blob_run(text, start, end)
        refwd = _refwd_end(text, run_end, end)
        if refwd != -1:  # (3): *subj-blob subj-refwd
            start, reply, moved = refwd, True, True
        elif run_end != start:  # (4) for each blob of the run, as long as text remains
            after = run_end if run_end < end else last_blob
            start, moved = after, moved or after != start
        if not moved:
            return start, reply


def base_subject(subject: str) -> tuple[str, bool]:
    """The base subject (RFC 5256 §2.1) of a Subject field's value as it is written
    (encoded-words and all), and whether it is a reply or forward (§3, step 5)."""
    text = packed(subject)
    start, end = 0, len(text)
    reply = False
    while True:
        while end > start:  # (2): subj-trailer = "(fwd)" / WSP
            if text[end - 1] == " ":
                end -= 1
            elif end - start >= 5 and text.startswith("(FWD)", end - 5, end):
                end, reply = end - 5, True
            else:
                break
        start, leader = _leaders(text, start, end)
        reply = reply or leader
        # (6): subj-fwd-hdr "[fwd:" … subj-fwd-trl "]" around what is left
        if text.startswith("[FWD:", start, end) and end - start > 5 and text[end - 1] == "]":
            start, end, reply = start + 5, end - 1, True
            continue
        return text[start:end], reply
