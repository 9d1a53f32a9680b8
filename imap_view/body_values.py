"""`BODY[…]`, `RFC822`, `RFC822.HEADER` and `RFC822.TEXT` literals without NUL octets.

RFC 3501 §9: a literal is CHAR8 octets, and CHAR8 excludes NUL; only BINARY's literal8
(RFC 3516) may carry one. A message may hold NULs all the same: one a client APPENDed
as a plain literal, or one that came by SMTP (a literal8 APPEND's `binary` parts are
stored base64, imap_view/binary_append.py). Such a message is served with each NUL as
the octet 0x80, as Dovecot serves it (its `i_stream_create_nonuls`): the sizes stay
those of the stored bytes (RFC822.SIZE, BODYSTRUCTURE, partial ranges), and a client
never reads a NUL where the protocol says none can be. `BINARY[…]` gives the octets as
they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pymap.bytes import MaybeBytes
from pymap.fetch import DynamicLoadedFetchValue
from pymap.interfaces.message import LoadedMessageInterface
from pymap.parsing.primitives import LiteralString

from imap_view.pymap_compat import loaded_data

__all__ = ["BODY_VALUES", "without_nul"]


def without_nul(data: bytes) -> bytes:
    """`data` with each NUL as 0x80 (a search at C speed when there is none)."""
    return data.replace(b"\x00", b"\x80") if b"\x00" in data else data


class _BodyValue(DynamicLoadedFetchValue):
    """pymap's value of these items (its `_BodyFetchValue`), the data without NUL."""

    def get_value(self, loaded_msg: LoadedMessageInterface) -> MaybeBytes:
        if self.attribute.section is None:  # `BODY` alone: the non-extended BODYSTRUCTURE
            return loaded_msg.get_body_structure()
        return LiteralString(without_nul(bytes(loaded_data(self, loaded_msg))))


BODY_VALUES: Mapping[bytes, type[DynamicLoadedFetchValue]] = MappingProxyType(
    dict.fromkeys((b"BODY", b"BODY.PEEK", b"RFC822", b"RFC822.HEADER", b"RFC822.TEXT"), _BodyValue)
)
