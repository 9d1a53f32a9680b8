"""imap_view/pymap_speedups.py formats exactly as pymap's own `BytesFormat.__mod__`."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pymap.bytes import BytesFormat
from pymap.fetch import DynamicFetchValue, DynamicLoadedFetchValue, MessageAttributes
from pymap.flags import PermanentFlags, SessionFlags
from pymap.mime import MessageContent
from pymap.parsing import Params
from pymap.parsing.primitives import Nil, Number, String
from pymap.parsing.response.specials import ListResponse, LSubResponse
from pymap.parsing.specials import FetchAttribute, FetchRequirement, ObjectId
from pymap.parsing.specials.flag import Flag, Flagged, Seen
from pymap.parsing.state import ParsingState
from pymap.selected import SelectedMailbox

from imap_view.fetch_lines import GatewayAttributes
from imap_view.message import LoadedMessage, Message
from imap_view.pymap_speedups import (
    ORIGINAL_DYNAMIC_BYTES,
    ORIGINAL_JOIN,
    ORIGINAL_LIST_TEXT,
    ORIGINAL_LOADED_BYTES,
    ORIGINAL_PARAMS_COPY,
    dynamic_value_bytes,
    interpolate,
    join,
    list_text,
    loaded_value_bytes,
    original_interpolate,
    params_copy,
)


class Stringish:
    """Has `__bytes__`, like pymap's response parts."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __bytes__(self) -> bytes:
        return self.text.encode()


atoms: st.SearchStrategy[Any] = st.one_of(
    st.binary(max_size=8),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.booleans(),
    st.text(max_size=4).map(Stringish),
    st.text(max_size=4).map(String.build),
    st.integers(min_value=0, max_value=2**32).map(Number),
    st.just(Nil()),
    st.text(max_size=4),  # no __bytes__: refused by both
    st.floats(allow_nan=False),
    st.none(),
)
values = st.one_of(atoms, st.lists(atoms, max_size=3), st.tuples(atoms, atoms))


def outcome(fn: Any, how: bytes, value: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(BytesFormat(how), value)
    except Exception as exc:  # the same failure counts as the same outcome
        return "raised", type(exc)


@given(st.sampled_from([b"%b", b"<%b>", b"%b %b", b"* %b FETCH"]), values)
def test_the_same_bytes_or_the_same_error(how: bytes, value: Any) -> None:
    assert outcome(interpolate, how, value) == outcome(original_interpolate, how, value)


def test_a_fetch_line_formats_as_before() -> None:
    how = b"* %b FETCH (%b)"
    parts = [Number(7), BytesFormat(b" ").join([b"FLAGS", b"(\\Seen)"])]
    assert interpolate(BytesFormat(how), parts) == b"* 7 FETCH (FLAGS (\\Seen))"


def test_fetch_values_format_as_before() -> None:
    """FLAGS, UID, ENVELOPE, BODY[] and RFC822.SIZE values: the same bytes both ways,
    with the content loaded and without it (the placeholder pymap logs)."""
    raw = b"Subject: hi\r\nFrom: A <a@example.com>\r\n\r\nbody\r\n"
    message = LoadedMessage(
        Message(7, frozenset({Seen, Flagged}), mail_seq=7), FetchRequirement.CONTENT, None
    )
    selected = SelectedMailbox(
        ObjectId(b"F1"), False, PermanentFlags(frozenset()), SessionFlags(frozenset())
    )
    names = [b"FLAGS", b"UID", b"ENVELOPE", b"RFC822.SIZE"]
    attributes = [FetchAttribute(name) for name in names]
    attributes.append(FetchAttribute(b"BODY", FetchAttribute.Section(())))
    values = list(MessageAttributes(message.message, selected, attributes))
    loaded = LoadedMessage(message.message, FetchRequirement.CONTENT, MessageContent.parse(raw))
    for value in values:
        simple = isinstance(value, DynamicFetchValue)
        original = ORIGINAL_DYNAMIC_BYTES if simple else ORIGINAL_LOADED_BYTES
        fast = dynamic_value_bytes if simple else loaded_value_bytes
        assert fast(value) == original(value)  # type: ignore[arg-type]
        if isinstance(value, DynamicLoadedFetchValue):
            with value._get_loaded.apply(loaded):  # type: ignore[attr-defined]
                assert fast(value) == original(value)  # type: ignore[arg-type]
                assert b'"hi"' in fast(value) or b"body" in fast(value) or b"SIZE" in fast(value)


def test_the_gateway_fetch_values_of_flags_and_uid_are_pymaps() -> None:
    """imap_view/fetch_lines.py's FLAGS (kept per flag set) and UID write pymap's bytes."""
    selected = SelectedMailbox(
        ObjectId(b"F1"), False, PermanentFlags(frozenset()), SessionFlags(frozenset())
    )
    attributes = [FetchAttribute(b"FLAGS"), FetchAttribute(b"UID")]
    for flags in (frozenset(), frozenset({Seen, Flagged}), frozenset({Flag(b"$Label1"), Seen})):
        message = Message(12345, flags, mail_seq=1)
        ours = GatewayAttributes(message, selected, attributes, FetchRequirement.METADATA)
        theirs = MessageAttributes(message, selected, attributes)
        for _ in range(2):  # the second time from the kept bytes
            assert [bytes(v) for v in ours] == [bytes(v) for v in theirs]


_FIELDS = Params.__slots__
_maybe_state = st.one_of(st.none(), st.just(ParsingState()))
_maybe_bytes = st.one_of(st.none(), st.just(b""), st.just(b"A1"), st.just(b"FETCH"))
_maybe_int = st.one_of(st.none(), st.just(0), st.integers(1, 10**6))
_maybe_bool = st.one_of(st.none(), st.booleans())
_params = st.builds(
    Params,
    _maybe_state,
    expected=st.one_of(st.none(), st.just([]), st.just([Number])),
    list_limit=_maybe_int,
    command_name=_maybe_bytes,
    uid=st.booleans(),
    charset=st.one_of(st.none(), st.just("utf-8")),
    tag=_maybe_bytes,
    max_append_len=_maybe_int,
    allow_continuations=st.booleans(),
)


@given(
    _params,
    _maybe_state,
    st.fixed_dictionaries(
        {},
        optional={
            "expected": st.one_of(st.none(), st.just([]), st.just([Nil])),
            "list_limit": _maybe_int,
            "command_name": _maybe_bytes,
            "uid": _maybe_bool,
            "charset": st.one_of(st.none(), st.just("ascii")),
            "tag": _maybe_bytes,
            "max_append_len": _maybe_int,
            "allow_continuations": _maybe_bool,
        },
    ),
)
def test_params_copy_is_pymaps(params: Params, state: ParsingState | None, kw: Any) -> None:
    ours, theirs = params_copy(params, state, **kw), ORIGINAL_PARAMS_COPY(params, state, **kw)
    assert type(ours) is type(theirs) is Params
    for field in _FIELDS:  # the same objects (ParsingState compares by identity)
        assert getattr(ours, field) == getattr(theirs, field), field


def _joined(fn: Any, how: bytes, items: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(BytesFormat(how), items, [b"tail", Number(3)])
    except Exception as exc:
        return "raised", type(exc)


@given(st.sampled_from([b" ", b", ", b""]), st.lists(atoms, max_size=5))
def test_join_is_pymaps(how: bytes, items: list[Any]) -> None:
    assert _joined(join, how, items) == _joined(ORIGINAL_JOIN, how, items)


@given(
    st.sampled_from([ListResponse, LSubResponse]),
    st.sampled_from(["INBOX", "Sessions/fix-leak", "Entwürfe", 'a "quoted" name', "日本"]),
    st.sampled_from(["/", ".", None]),
    st.lists(st.sampled_from([b"HasChildren", b"Noselect", b"Sent", b"Trash"]), max_size=3),
)
def test_list_text_is_pymaps(
    kind: type[ListResponse], name: str, sep: str | None, attrs: list[bytes]
) -> None:
    for _ in range(2):  # the second time from the kept text
        ours = list_text(kind(name, sep, iter(attrs)))  # an iterator: read once only
        theirs = ORIGINAL_LIST_TEXT.fget(kind(name, sep, attrs))  # type: ignore[attr-defined]
        assert ours == theirs
