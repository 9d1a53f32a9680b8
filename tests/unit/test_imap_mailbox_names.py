"""Mailbox names decoded by imap_view/mailbox_names.py, and LIST patterns matched by
imap_view/list_patterns.py, compared with pymap's encoder and regular expressions.

Each parse runs in a daemon thread joined with a generous margin: pymap 0.36.7's
decoder never returns on `&AAA`, and a test must fail then, not hang.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pymap.listtree import ListTree
from pymap.parsing import Params
from pymap.parsing.command.auth import SelectCommand
from pymap.parsing.commands import InvalidCommand
from pymap.parsing.modutf7 import modutf7_encode
from pymap.parsing.specials import Mailbox

from imap_view.config import GatewayImapConfig
from imap_view.list_patterns import PatternListTree, matches
from imap_view.mailbox_names import (
    MAX_NAME_OCTETS,
    UTF8_NAMES,
    InvalidName,
    decode_modutf7,
    decode_name,
    install,
)

install()  # as imap_view/server.py does when the gateway imports it

MARGIN = 30.0  # seconds: a parse takes microseconds; only a loop takes this long


def _within_margin(work: Callable[[], object]) -> object:
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(MARGIN)
    assert not thread.is_alive(), "the parse did not return"
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome.get("value")


MALFORMED = [
    b"&AAA",  # a shift never closed: pymap looped forever
    b"&'+,-",  # not modified BASE64: pymap raised out of the parser (`* BYE [SERVERBUG]`)
    b"&",
    b"a&",
    b"&Jjo",
    b"&AGE-",  # "a", which must stand for itself
    b"&2D0-",  # a lone surrogate
    b"&Jjo=-",  # padding
    b"&Jj-",  # leftover bits that are not zero, too few for a unit
    b"\xff",
    b"caf\xc3\xa9",  # UTF-8 without UTF8=ACCEPT
    b"tab\there",
]


@pytest.mark.parametrize("raw", MALFORMED)
def test_a_malformed_name_is_refused_by_the_parse_every_command_uses(raw: bytes) -> None:
    line = memoryview(b'"' + raw + b'"\r\n')
    with pytest.raises(InvalidName):
        _within_margin(lambda: Mailbox.parse(line, Params()))


def test_select_of_a_never_closed_shift_parses_to_an_invalid_command() -> None:
    commands = GatewayImapConfig(domain="test", allow_plaintext_auth=True).commands
    for line in (b"a SELECT &AAA\r\n", b'd EXAMINE "&AAA"\r\n', b"c STATUS &AAA (MESSAGES)\r\n"):
        parsed = _within_margin(lambda line=line: commands.parse(memoryview(line), Params()))
        command, _ = parsed  # type: ignore[misc]
        assert isinstance(command, InvalidCommand), line
        assert isinstance(command.parse_exc, InvalidName), line


# pymap's encoder hands a control character to Python's UTF-7, which writes tab, CR
# and LF as themselves: the gateway's names have none.
_name_chars = st.characters(min_codepoint=0x20, blacklist_categories=("Cs",))


@given(st.text(_name_chars, max_size=40))
def test_every_name_pymap_encodes_decodes_back(name: str) -> None:
    assert decode_modutf7(modutf7_encode(name)) == name


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        (b"&-", "&"),
        (b"a&-b", "a&b"),
        (b"&Jjo-", "\u263a"),
        (b"&ZeVnLIqe-", "日本語"),
        (b"Sessions/x", "Sessions/x"),
        (b"~peter/mail/&U,BTFw-/&ZeVnLIqe-", "~peter/mail/台北/日本語"),  # RFC 3501 §5.1.3
    ],
)
def test_valid_names_decode_as_rfc_3501_shows(raw: bytes, name: str) -> None:
    assert decode_name(raw) == name


def test_utf8_names_after_utf8_accept() -> None:
    assert decode_name("café".encode(), utf8=True) == "café"
    assert decode_name(b"&Jjo-", utf8=True) == "\u263a"  # ASCII: still modified UTF-7
    for raw in (b"\xff", b"caf\xc3", b"a\xc2\x85b"):  # not UTF-8; a C1 control
        with pytest.raises(ValueError):
            decode_name(raw, utf8=True)
    token = UTF8_NAMES.set(True)
    try:
        mailbox, _ = Mailbox.parse(memoryview('"café"\r\n'.encode()), Params())
    finally:
        UTF8_NAMES.reset(token)
    assert mailbox.value == "café"


def test_a_name_is_bounded() -> None:
    assert decode_name(b"x" * MAX_NAME_OCTETS) == "x" * MAX_NAME_OCTETS
    with pytest.raises(OverflowError):
        decode_name(b"x" * (MAX_NAME_OCTETS + 1))
    with pytest.raises(InvalidName):
        Mailbox.parse(memoryview(b"x" * (MAX_NAME_OCTETS + 1) + b"\r\n"), Params())


def test_inbox_is_inbox_in_any_case() -> None:
    mailbox, _ = Mailbox.parse(memoryview(b"iNbOx\r\n"), Params())
    assert mailbox.value == "INBOX"
    assert SelectCommand.parse(memoryview(b" inbox\r\n"), Params())[0].mailbox == "INBOX"


NAMES = ["INBOX", "Sent", "Drafts", "Sessions", "Sessions/alpha", "Sessions/a-b", "Needs decision"]
_pattern_chars = st.text(alphabet="*%/aSesINBOXnx-", max_size=12)


@given(_pattern_chars, st.sampled_from(["", *NAMES[3:5]]))
def test_patterns_match_as_pymaps_regular_expressions(pattern: str, ref: str) -> None:
    ours = [e.name for e in PatternListTree("/").update(*NAMES).list_matching(ref, pattern)]
    pymaps = [e.name for e in ListTree("/").update(*NAMES).list_matching(ref, pattern)]
    assert ours == pymaps


def test_a_pattern_of_many_wildcards_is_matched_in_linear_time() -> None:
    """`*a*a…*b` against a name of many `a` runs: a regular expression backtracks for
    longer than the margin; the position sets take len(pattern) * len(name) steps."""
    pattern, name = "*a" * 30 + "*b", "Sessions/" + "a" * 64
    assert _within_margin(lambda: matches(pattern, name, "/")) is False
    assert matches("*a*", name, "/") and matches("Sessions/%", name, "/")
    assert not matches("%", name, "/") and matches("%/*", name, "/")
