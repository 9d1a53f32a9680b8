"""`SEARCH` and `UID SEARCH` that answer every charset problem instead of dropping the client.

pymap 0.36.7 decodes a search string while it parses the command line, and a
string that is not valid in its charset (`SEARCH SUBJECT "\\xff"`, or
`SEARCH CHARSET UTF-8 SUBJECT {1+}` then `\\xc3`) raised UnicodeDecodeError out
of the parser: the connection ended with `* BYE Unhandled server error`, and no
tagged reply. A charset it does not know (`SEARCH CHARSET BOGUS ALL`) was a
`BAD`, where RFC 3501 §6.4.4 asks for a tagged `NO` with the `BADCHARSET`
response code (§7.1), listing the charsets we do support.

Here the same commands, registered in place of pymap's (`imap_view/config.py`):
* an unknown charset, or a charset name that is not ASCII: `NO [BADCHARSET (UTF-8 US-ASCII)]`;
* a search string that its charset cannot decode: `BAD` (invalid arguments).
The session goes on in both cases. The commands parse CONDSTORE's MODSEQ key too
(imap_view/condstore_parsing.py), and ESEARCH's RETURN options (RFC 4731 §3.1:
MIN, MAX, ALL, COUNT; `RETURN ()` is ALL; any other is `BAD`), which
imap_view/esearch.py answers.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pymap.exceptions import ResponseError
from pymap.parsing import Params
from pymap.parsing.command.select import SearchCommand
from pymap.parsing.commands import Commands
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.primitives import List
from pymap.parsing.response import Response, ResponseCode, ResponseNo
from pymap.parsing.specials.options import ExtensionOption, ExtensionOptions
from pymap.parsing.specials.searchkey import SearchKey

from imap_view.command_cache import KeptCommands
from imap_view.condstore_parsing import ModseqSearchCommand, ModseqUidSearchCommand

__all__ = ["RETURNS", "SUPPORTED", "search_commands"]

SUPPORTED = b"UTF-8 US-ASCII"  # RFC 3501 §6.4.4: both MUST be supported
RETURNS: Final = (b"MIN", b"MAX", b"ALL", b"COUNT")  # RFC 4731 §3.1
_RETURN = re.compile(rb" *RETURN(?= |$)", re.I)
_RETURN_LIST = re.compile(rb" +\(([A-Za-z ]*)\)")


class BadCharset(ResponseError):
    def get_response(self, tag: bytes) -> Response:
        return ResponseNo(
            tag,
            b"SEARCH: that charset is not supported.",
            ResponseCode.of(b"BADCHARSET (" + SUPPORTED + b")"),
        )


class RefusedSearch(SearchCommand):
    """A SEARCH whose charset we do not support: running it answers `NO [BADCHARSET]`
    (after pymap's own checks: authenticated, a mailbox selected)."""

    @property
    def keys(self) -> frozenset[SearchKey]:
        raise BadCharset()

    @keys.setter
    def keys(self, _keys: frozenset[SearchKey]) -> None:
        pass  # SearchCommand.__init__ assigns the (empty) keys


class RefusedUidSearch(RefusedSearch):
    command = b"UID SEARCH"
    delegate = SearchCommand
    uid = True


def _is_bad_charset(exc: NotParseable) -> bool:
    return exc.code is not None and b"BADCHARSET" in bytes(exc.code)


class _CharsetChecked:
    refused: type[RefusedSearch] = RefusedSearch

    @classmethod
    def _parse_options(cls, buf: memoryview, params: Params) -> tuple[ExtensionOptions, memoryview]:
        """RFC 4731 §3.1's RETURN options, in place of pymap's reading of any options."""
        start = _RETURN.match(buf)
        if start is None:
            return ExtensionOptions.empty(), buf
        listed = _RETURN_LIST.match(buf, start.end(0))
        if listed is None:
            raise NotParseable(buf)
        words = listed.group(1).upper().split() or [b"ALL"]
        if any(word not in RETURNS for word in words):
            raise NotParseable(buf)
        options = [ExtensionOption(word, List([])) for word in dict.fromkeys(words)]
        return ExtensionOptions(options), buf[listed.end(0) :]

    @classmethod
    def _parse_charset(cls, buf: memoryview, params: Params) -> tuple[str | None, memoryview]:
        try:
            result: tuple[str | None, memoryview] = super()._parse_charset(  # type: ignore[misc]
                buf, params
            )
        except UnicodeError as exc:  # a charset name that is not ASCII
            raise NotParseable(buf, b"BADCHARSET") from exc
        return result

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[Any, memoryview]:
        try:
            result: tuple[Any, memoryview] = super().parse(buf, params)  # type: ignore[misc]
        except NotParseable as exc:
            if _is_bad_charset(exc):
                return cls.refused(params.tag, (), None), buf[0:0]
            raise
        except (UnicodeError, LookupError) as exc:  # a string its charset cannot decode
            raise NotParseable(buf) from exc
        return result


class CheckedSearch(_CharsetChecked, ModseqSearchCommand):
    pass


class CheckedUidSearch(_CharsetChecked, ModseqUidSearchCommand):
    refused = RefusedUidSearch


def search_commands() -> Commands:
    """pymap's commands, with SEARCH and UID SEARCH replaced by the checked ones (and
    repeated lines parsed once, imap_view/command_cache.py)."""
    commands = KeptCommands()
    commands.register(CheckedSearch)
    commands.register(CheckedUidSearch)
    return commands
