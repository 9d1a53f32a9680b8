"""imap_view/command_cache.py: a repeated line is the same command with its own tag;
lines that write, carry secrets or literals are parsed every time."""

from __future__ import annotations

import pytest
from pymap.parsing import Params
from pymap.parsing.command import Command
from pymap.parsing.commands import Commands
from pymap.parsing.state import ParsingState

from imap_view.config import EXTENSION_COMMANDS
from imap_view.search_charset import search_commands

KEPT = [
    b"NOOP",
    b'LIST "" "*"',
    b"STATUS INBOX (MESSAGES UNSEEN UIDNEXT)",
    b"UID SEARCH UNSEEN",
    b'SEARCH CHARSET UTF-8 SUBJECT "cafe" NOT SEEN',
    b"UID FETCH 1:20 (FLAGS ENVELOPE)",
    b"FETCH 3 (BODY.PEEK[HEADER.FIELDS (SUBJECT)] MODSEQ) (CHANGEDSINCE 12)",
    b"SELECT INBOX (CONDSTORE)",
]
PARSED_EVERY_TIME = [
    b"LOGIN alice secret",
    b"UID STORE 1 +FLAGS (\\Seen)",
    b"STORE 1 -FLAGS (\\Seen)",
    b"UID EXPUNGE 1",
    b"APPEND Drafts {3+}\r\nabc",
    b"SEARCH SUBJECT {3+}\r\nabc",
    b"IDLE",
    b"UNKNOWN thing",
    b"FETCH 1:* (NOSUCH)",
    b"SEARCH CHARSET UTF-8 SUBJECT caf\xc3\xa9",  # 8-bit outside a literal: BAD
]


def _commands() -> Commands:
    commands = search_commands()
    for command in EXTENSION_COMMANDS:
        commands.register(command)
    return commands


def _shape(value: object, depth: int = 0) -> object:
    """A value as plain data: what it holds, not where it lives."""
    if value is None or isinstance(value, bool | int | float | str | bytes) or depth > 8:
        return value if depth <= 8 else "..."
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, list | tuple):
        return [_shape(v, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(repr(_shape(v, depth + 1)) for v in value)
    if isinstance(value, dict):
        return sorted((repr(_shape(k, depth + 1)), _shape(v, depth + 1)) for k, v in value.items())
    names = {n for cls in type(value).__mro__ for n in getattr(cls, "__slots__", ())}
    names |= set(getattr(value, "__dict__", {}))
    held = {n: _shape(getattr(value, n, None), depth + 1) for n in sorted(names)}
    return (type(value).__name__, held)


def _state(command: Command) -> object:
    """Every slot and attribute of a command, but its tag."""
    shape = _shape(command)
    assert isinstance(shape, tuple)
    return {n: v for n, v in shape[1].items() if n != "tag"}


@pytest.mark.parametrize("line", KEPT)
def test_a_repeated_line_is_the_command_parsed_anew_with_its_own_tag(line: bytes) -> None:
    commands = _commands()
    first, _ = commands.parse(memoryview(b"a1 " + line + b"\r\n"), Params())
    again, left = commands.parse(memoryview(b"b2 " + line + b"\r\n"), Params())
    fresh, fresh_left = Commands.parse(commands, memoryview(b"b2 " + line + b"\r\n"), Params())
    assert again is not first and again.tag == b"b2" and first.tag == b"a1"
    assert type(again) is type(fresh) and again.tag == fresh.tag
    assert bytes(left) == bytes(fresh_left) == b""
    assert _state(again) == _state(fresh)
    kept = commands._kept.values()  # type: ignore[attr-defined]
    assert len({id(command) for command in kept}) == 1


@pytest.mark.parametrize(
    ("line", "other"),
    [
        (b"UID FETCH 1 (BODY.PEEK[])", b"UID FETCH 4711 (BODY.PEEK[])"),
        (b"FETCH 1:20 (FLAGS ENVELOPE)", b"fetch 3,5:* (FLAGS ENVELOPE)"),
        (b"UID FETCH 2 (FLAGS) (CHANGEDSINCE 12)", b"UID FETCH 9:* (FLAGS) (CHANGEDSINCE 12)"),
    ],
)
def test_a_fetch_of_other_messages_is_the_command_with_their_set(line: bytes, other: bytes) -> None:
    """mbsync fetches one message per command: the line differs only in its set."""
    commands = _commands()
    first, _ = commands.parse(memoryview(b"a1 " + line + b"\r\n"), Params())
    again, left = commands.parse(memoryview(b"b2 " + other + b"\r\n"), Params())
    fresh, _ = Commands.parse(commands, memoryview(b"b2 " + other + b"\r\n"), Params())
    assert bytes(left) == b"" and again.tag == b"b2" and type(again) is type(fresh)
    assert _state(again) == _state(fresh)
    assert again.attributes is first.attributes  # type: ignore[attr-defined]  # not parsed


@pytest.mark.parametrize("line", PARSED_EVERY_TIME)
def test_lines_that_write_hold_secrets_or_literals_are_not_kept(line: bytes) -> None:
    commands = _commands()
    for _ in range(2):
        params = Params(ParsingState(continuations=[memoryview(b"abc")]))
        head, _, _ = line.partition(b"\r\n")
        commands.parse(memoryview(b"a " + head + b"\r\n"), params)
        commands.parse(memoryview(b"a " + head + b"\r\n"), Params())
    assert not commands._kept  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "numbers",
    [b"1", b"1:5", b"*", b"5:*", b"*:3", b"3:2", b"1,3:4,10:*", b"12345678901", b"1,", b"1,,2"],
)
def test_a_fetch_of_other_messages_reads_their_set_as_pymap(numbers: bytes) -> None:
    """The set of a kept FETCH's copy: read without pymap's parse where it is strictly
    RFC 3501 §9's; any other line parsed whole by pymap (a set ending in a comma or
    with an empty element makes the line invalid): the same command either way."""
    commands = _commands()
    commands.parse(memoryview(b"a1 UID FETCH 1 (FLAGS)\r\n"), Params())
    line = b"b2 UID FETCH %b (FLAGS)\r\n" % numbers
    fresh, _ = Commands.parse(commands, memoryview(line), Params())
    again, _ = commands.parse(memoryview(line), Params())
    assert type(again) is type(fresh) and _state(again) == _state(fresh)
