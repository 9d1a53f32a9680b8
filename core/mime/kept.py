"""A message's structure and summary as kept with it: computed once, read as they are.

When bytes are stored (SMTP, import) their structure (core/mime/structure.py: the
parts, their byte offsets, sizes and line counts) and their summary
(core/mime/summary.py: what ENVELOPE and BODYSTRUCTURE carry, the fields clients fetch
by name) are worked out in the same worker-thread pass as their hash, and stored as
JSON beside them (core/store/models/structures.py). IMAP then reads them instead of
parsing the message: a listing of a thousand messages reads a thousand short JSON
texts. A message whose structure was never kept (stored before, or rendered and not
yet filled) gets the same from `kept_structure` when IMAP reads it, so the answers
are the same whichever way they came.

The JSON is ASCII (non-ASCII text escaped, lone surrogates included), so both
databases keep it byte for byte. `KEPT_VERSION` changes whenever what is kept
changes; rows of another version are filled again by the backfill.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from core.mime.bounds import LIMITS, MimeLimits
from core.mime.structure import Structure, mime_structure
from core.mime.summary import summarize

__all__ = ["KEPT_VERSION", "KeptStructure", "kept_structure", "summary_of"]

KEPT_VERSION: Final = 2  # 2: ENVELOPE as Dovecot writes it (Date as written, addresses, names)


@dataclass(frozen=True, slots=True)
class KeptStructure:
    """The JSON texts kept for one message's bytes."""

    structure: str
    summary: str | None  # None: a header the email package could not read
    opaque: bool
    version: int = KEPT_VERSION

    def parsed_structure(self) -> Structure:
        return Structure.from_json(json.loads(self.structure))


def _text(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def kept_structure(data: bytes, limits: MimeLimits = LIMITS) -> KeptStructure:
    """Pure CPU, a few milliseconds for everyday mail (the bounded walk, then the email
    package on the headers ENVELOPE and BODYSTRUCTURE read): call it in a worker thread."""
    structure = mime_structure(data, limits)
    try:
        summary: str | None = _text(summarize(data, structure))
    except Exception:  # a header it cannot read: IMAP parses it as before
        summary = None
    return KeptStructure(_text(structure.to_json()), summary, structure.opaque)


def summary_of(text: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(text)
    return loaded
