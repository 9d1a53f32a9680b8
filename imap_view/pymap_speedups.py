"""A faster `BytesFormat.__mod__` for pymap 0.36.7, which formats every response, and
FETCH values formatted without it.

pymap checks each value it interpolates with `isinstance(x, SupportsIndex)` and
`isinstance(x, SupportsBytes)`: runtime-checkable protocols, which Python 3.11
checks by collecting the protocol's attributes on every call, and a
`FETCH 1:1000 (FLAGS ENVELOPE)` formats ~19,000 values. The replacement asks the
same question directly (does the value have `__index__`, is it bytes or has it
`__bytes__`), as those protocol checks do, so the results are the same
(tests/unit/test_pymap_speedups.py).

`Params.copy`, which parsing calls three times per command line and more inside
a command's arguments, went through a keyword dictionary, a method call per field and
`Params.__init__`, a large part of reading a command. The replacement sets the same
fields directly.

`BytesFormat.join` (SEARCH's numbers, LIST's parts) asked `isinstance(x, numbers.Number)`,
an ABC check, of every item; bytes items now pass as they are (bytes is no Number, and
`bytes(b)` is `b`). A LIST line's text (modified UTF-7, quoting) is kept per mailbox,
delimiter and attributes: clients list the same folders again and again.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from itertools import chain
from numbers import Number
from typing import Any

from pymap.bytes import BytesFormat, MaybeBytes
from pymap.fetch import DynamicFetchValue, DynamicLoadedFetchValue, MessageAttributes
from pymap.parsing import Params
from pymap.parsing.response.specials import ListResponse
from pymap.parsing.state import ParsingState

from imap_view.pymap_compat import fix_join_arg, list_response_name, loaded_message_getter

__all__ = [
    "dynamic_value_bytes",
    "install",
    "interpolate",
    "join",
    "list_text",
    "loaded_value_bytes",
    "original_interpolate",
    "params_copy",
    "value_part",
]

_original_mod = BytesFormat.__mod__
ORIGINAL_DYNAMIC_BYTES = DynamicFetchValue.__bytes__
ORIGINAL_LOADED_BYTES = DynamicLoadedFetchValue.__bytes__
ORIGINAL_PARAMS_COPY = Params.copy
ORIGINAL_JOIN = BytesFormat.join
ORIGINAL_LIST_TEXT = ListResponse.text
_fix_join_arg = fix_join_arg


def interpolate(self: BytesFormat, other: Any) -> bytes:
    """`BytesFormat.__mod__` without runtime protocol checks."""
    if hasattr(other, "__index__") or isinstance(other, bytes) or hasattr(other, "__bytes__"):
        return self.format([other])
    if isinstance(other, Iterable):
        return self.format(other)
    raise NotImplementedError()


def value_part(value: MaybeBytes) -> Any:
    """`BytesFormat._fix_format_arg`: a `numbers.Number` as it is (`%b` then refuses it,
    as pymap's does), anything else as its bytes."""
    return value if isinstance(value, Number) else bytes(value)


def dynamic_value_bytes(self: DynamicFetchValue) -> bytes:
    """`DynamicFetchValue.__bytes__` (FLAGS, UID, MODSEQ of every FETCH line) as one
    `%` on bytes instead of a `BytesFormat` built and applied per value."""
    return b"%b %b" % (bytes(self.attribute.for_response), value_part(self.get_value()))


def loaded_value_bytes(self: DynamicLoadedFetchValue) -> bytes:
    """`DynamicLoadedFetchValue.__bytes__` (ENVELOPE, BODY[] …) the same way."""
    loaded = loaded_message_getter(self).loaded_msg
    value = MessageAttributes.placeholder if loaded is None else self.get_value(loaded)
    return b"%b %b" % (bytes(self.attribute.for_response), value_part(value))


def params_copy(
    self: Params,
    state: ParsingState | None = None,
    *,
    expected: Any = None,
    list_limit: int | None = None,
    command_name: bytes | None = None,
    uid: bool | None = None,
    charset: str | None = None,
    tag: bytes | None = None,
    max_append_len: int | None = None,
    allow_continuations: bool | None = None,
) -> Params:
    """`Params.copy`: a field given (not None) replaces this one's, as in pymap, and the
    defaults `Params.__init__` applies to falsy values (`or`) are applied the same way."""
    new = Params.__new__(Params)
    new.state = (self.state if state is None else state) or ParsingState()
    new.expected = (self.expected if expected is None else expected) or []
    new.list_limit = self.list_limit if list_limit is None else list_limit
    new.command_name = self.command_name if command_name is None else command_name
    new.uid = self.uid if uid is None else uid
    new.charset = self.charset if charset is None else charset
    new.tag = (self.tag if tag is None else tag) or b"*"
    new.max_append_len = self.max_append_len if max_append_len is None else max_append_len
    new.allow_continuations = (
        self.allow_continuations if allow_continuations is None else allow_continuations
    )
    return new


def join(self: BytesFormat, *data: Iterable[Any]) -> bytes:
    """`BytesFormat.join`, bytes items taken as they are."""
    fix = _fix_join_arg
    return self.how.join([i if type(i) is bytes else fix(i) for i in chain(*data)])


_LIST_TEXTS: dict[Hashable, bytes] = {}
_LIST_TEXTS_MAX = 4096  # folders by attribute sets; starts again past this many


def list_text(self: ListResponse) -> bytes:
    """`ListResponse.text`, kept per (LIST or LSUB, mailbox, delimiter, attributes)."""
    attrs = self.attrs = tuple(self.attrs)  # an iterable may be read once only
    key = (list_response_name(self), self.mailbox, self.sep, attrs)
    text = _LIST_TEXTS.get(key)
    if text is None:
        if len(_LIST_TEXTS) >= _LIST_TEXTS_MAX:
            _LIST_TEXTS.clear()
        text = _LIST_TEXTS[key] = _original_list_text(self)
    return text


def _original_list_text(response: ListResponse) -> bytes:
    getter = ORIGINAL_LIST_TEXT.fget  # type: ignore[attr-defined]
    text: bytes = getter(response)
    return text


def install() -> None:
    """Idempotent; called when the IMAP server module is imported."""
    BytesFormat.__mod__ = interpolate  # type: ignore[method-assign]
    DynamicFetchValue.__bytes__ = dynamic_value_bytes  # type: ignore[method-assign]
    DynamicLoadedFetchValue.__bytes__ = loaded_value_bytes  # type: ignore[method-assign]
    Params.copy = params_copy  # type: ignore[method-assign]
    BytesFormat.join = join  # type: ignore[method-assign]
    ListResponse.text = property(list_text)  # type: ignore[assignment,method-assign]


def original_interpolate(self: BytesFormat, other: Any) -> bytes:
    """pymap's own version, for the test that compares the two."""
    return _original_mod(self, other)
