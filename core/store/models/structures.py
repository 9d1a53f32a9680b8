"""What a stored message is made of, worked out once (core/mime/kept.py) and kept beside it.

IMAP clients list folders with `FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE)`: the parts,
their sizes and line counts, the addresses, the fields clients ask for by name. They
are computed from the bytes when these are stored and read from here, so a listing
parses nothing (docs/imap.md, "Kept structures"). Their own tables, not columns of
`raw_messages` or `mails`: SQLite keeps a row's columns one after the other, and a
column behind a megabyte of message bytes is read by walking that megabyte's pages.

`version` is core/mime/kept.py's `KEPT_VERSION` when the row was made: a row of
another version is refilled by the backfill (core/rendering/backfill.py) and, until
then, not used.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core.store.models.columns import Base, SeqType


class MessageStructure(Base):
    """The kept structure of a message's original bytes (`raw_messages`, by sha256):
    bytes never change, so neither does this row; mails sharing bytes share it."""

    __tablename__ = "message_structures"

    sha256: Mapped[str] = mapped_column(
        String(64), ForeignKey("raw_messages.sha256", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)
    structure: Mapped[str] = mapped_column(Text)  # core/mime/structure.py's, JSON
    # core/mime/summary.py's, JSON; NULL when a header could not be read (IMAP parses).
    summary: Mapped[str | None] = mapped_column(Text, nullable=True, default=None)


class RenderedStructure(Base):
    """The kept structure of a mail served as its rendering (written in the web UI or
    over REST, core/rendering/render.py), for the rendering of `content_key`: the
    conversation's alias and the permission state it was made with. A rename or a
    decision changes the mail's key in its own transaction, so from its commit on this
    row is another key's and is not used; it is recomputed for the new bytes
    (docs/imap.md, "Kept structures")."""

    __tablename__ = "rendered_structures"

    mail_seq: Mapped[int] = mapped_column(
        SeqType, ForeignKey("mails.seq", ondelete="CASCADE"), primary_key=True
    )
    content_key: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer)
    structure: Mapped[str] = mapped_column(Text)
    summary: Mapped[str | None] = mapped_column(Text, nullable=True, default=None)
