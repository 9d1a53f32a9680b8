"""FETCH responses written by one function per message, over bytes kept per flag set
and per content.

For every message of a FETCH, pymap built a `MessageAttributes`, a `FetchValue` per
attribute, a `List` of them and an async context manager that loads the content, then
wrote each value through `BytesFormat`: a `UID FETCH a:a+19 (FLAGS ENVELOPE)` made
some two hundred objects to write twenty lines, a fifth of the mix's CPU. Here a
command's attributes become a `FetchPlan` once: one function per attribute giving its
`NAME value` bytes from the message, the selected mailbox and the loaded content.
UID, FLAGS (bytes kept per flag set), MODSEQ, ENVELOPE (formatted once per content,
imap_view/envelope.py), RFC822.SIZE and a whole `BODY[]` are written directly; every
other attribute through pymap's own value classes, so its bytes stay pymap's (BODY's
without NUL, imap_view/body_values.py). A
message's line is then one join (RFC 3501 §7.4.2: `* n FETCH (att val …)`).

A `FetchLine` still merges like pymap's `FetchResponse` with the `FETCH (FLAGS)` a
command's untagged updates add for the same message (`FetchOk`): the merged response
is pymap's, built from the same values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType

from pymap.bytes import MaybeBytes, WriteStream
from pymap.fetch import DynamicFetchValue, DynamicLoadedFetchValue, MessageAttributes
from pymap.interfaces.message import LoadedMessageInterface, MessageInterface
from pymap.parsing.primitives import List, LiteralString, Number
from pymap.parsing.response import UntaggedResponse
from pymap.parsing.response.specials import FetchResponse
from pymap.parsing.specials import DateTime, FetchAttribute, FetchRequirement, FetchValue
from pymap.parsing.specials.flag import Flag
from pymap.selected import SelectedMailbox

from imap_view.body_values import BODY_VALUES, without_nul
from imap_view.extensions import wire_modseq
from imap_view.fetch_memo import remembered
from imap_view.kept_fetch import kept_only
from imap_view.message import KeptLoaded, Message
from imap_view.pymap_compat import (
    as_untagged,
    loaded_attributes,
    loaded_data,
    simple_attributes,
)
from imap_view.pymap_speedups import value_part

__all__ = ["FetchLine", "FetchPlan", "GatewayAttributes", "flag_list", "plan_of"]

Loaded = LoadedMessageInterface | None
Render = Callable[[MessageInterface, SelectedMailbox, Loaded], bytes]

# A flag set as FETCH writes it, by set: a mailbox's messages share a few sets, and
# pymap built and sorted the list anew for every message of every FETCH. Bounded:
# keywords make more sets, and the dictionary starts again past this many.
_FLAG_LISTS: dict[frozenset[Flag], bytes] = {}
_FLAG_LISTS_MAX = 4096


def flag_list(flags: frozenset[Flag]) -> bytes:
    """pymap's `List(flags, sort=True)` as bytes, kept per flag set."""
    listed = _FLAG_LISTS.get(flags)
    if listed is None:
        if len(_FLAG_LISTS) >= _FLAG_LISTS_MAX:
            _FLAG_LISTS.clear()
        listed = _FLAG_LISTS[flags] = bytes(List(flags, sort=True))
    return listed


def _modseq_of(message: MessageInterface) -> int:
    return wire_modseq(message.modseq if isinstance(message, Message) else 0)


class _ModseqValue(DynamicFetchValue):
    def get_value(self) -> MaybeBytes:
        return List([Number(_modseq_of(self.message))])


class _FlagsValue(DynamicFetchValue):
    def get_value(self) -> MaybeBytes:
        return flag_list(self.message.get_flags(self.selected.session_flags))


class _UidValue(DynamicFetchValue):
    def get_value(self) -> MaybeBytes:
        return b"%d" % self.message.uid


class _BinaryValue(DynamicLoadedFetchValue):
    """`BINARY[n]` (and `BINARY.PEEK[n]`): the decoded part as a literal8 (`~{n}`) only
    when it holds a NUL octet, else as a plain literal. RFC 3516 §4.2: decoded data
    without NUL "SHOULD" be a <string> rather than a <literal8>, so a client knows there
    is no NUL without scanning; pymap 0.36.7 always wrote `~{n}`, which imapclient reads
    as the value itself. The data is read as pymap reads it (imap_view/pymap_compat.py)."""

    def get_value(self, loaded_msg: LoadedMessageInterface) -> MaybeBytes:
        data = bytes(loaded_data(self, loaded_msg, binary=True))
        return LiteralString(data, b"\x00" in data)


_SIMPLE: Mapping[bytes, type[DynamicFetchValue]] = MappingProxyType(
    {**simple_attributes(), b"MODSEQ": _ModseqValue, b"FLAGS": _FlagsValue, b"UID": _UidValue}
)
_LOADED: Mapping[bytes, type[DynamicLoadedFetchValue]] = MappingProxyType(
    {
        **loaded_attributes(),
        **BODY_VALUES,  # never a NUL in a literal (imap_view/body_values.py)
        b"BINARY": _BinaryValue,
        b"BINARY.PEEK": _BinaryValue,
    }
)


class GatewayAttributes(MessageAttributes):
    """pymap's fetch values (FLAGS and UID cheaper), and MODSEQ; what the attributes
    require of a message's content is worked out once per command (pymap reduced it
    per message). What `FetchLine` falls back to, and what a merge is made of."""

    _simple_attrs = _SIMPLE
    _loaded_attrs = _LOADED

    def __init__(
        self,
        message: MessageInterface,
        selected: SelectedMailbox,
        attributes: Sequence[FetchAttribute],
        requirement: FetchRequirement,
    ) -> None:
        super().__init__(message, selected, ())
        self.attributes = attributes  # type: ignore[misc]
        self.requirement = requirement  # type: ignore[misc]


class _Provider:
    """What pymap's loaded values read the content from (its `LoadedMessageProvider`)."""

    __slots__ = ["loaded_msg"]

    def __init__(self, loaded_msg: Loaded) -> None:
        self.loaded_msg = loaded_msg


def _uid(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
    return b"UID %d" % message.uid


def _flags(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
    return b"FLAGS " + flag_list(message.get_flags(selected.session_flags))


def _modseq(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
    return b"MODSEQ (%d)" % _modseq_of(message)  # RFC 7162 §3.1.4.1


def _envelope(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
    if isinstance(loaded, KeptLoaded):  # a listing: formatted once per message
        return b"ENVELOPE " + loaded.kept.envelope(loaded.utf8_kept)
    if loaded is None:
        return b"ENVELOPE " + MessageAttributes.placeholder
    return b"ENVELOPE " + bytes(loaded.get_envelope_structure())


def _body_structure(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
    """pymap's `BODYSTRUCTURE` value, from a kept summary or parsed content alike."""
    if isinstance(loaded, KeptLoaded):
        return b"BODYSTRUCTURE " + loaded.kept.body_structure(loaded.utf8_kept)
    if loaded is None:
        return b"BODYSTRUCTURE " + MessageAttributes.placeholder
    return b"BODYSTRUCTURE " + bytes(loaded.get_body_structure().extended)


# INTERNALDATE as written, by date: a message's never changes, and pymap formatted it
# with strftime for every line. Bounded: started again past this many.
_DATES: dict[tuple[datetime, timedelta | None], bytes] = {}
_DATES_MAX = 65_536


def _internal_date(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
    when = message.internal_date
    key = (when, when.utcoffset())  # equal times in two zones are written apart
    written = _DATES.get(key)
    if written is None:
        if len(_DATES) >= _DATES_MAX:
            _DATES.clear()
        written = _DATES[key] = b"INTERNALDATE " + bytes(DateTime(when))
    return written


def _size(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
    if loaded is None:
        return b"RFC822.SIZE " + MessageAttributes.placeholder
    return b"RFC822.SIZE %d" % loaded.get_size()


def _whole_body(name: bytes) -> Render:
    """`BODY[]` (and `BODY.PEEK[]`, `RFC822`): the whole message as one literal."""

    def render(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
        if loaded is None:
            return name + b" " + MessageAttributes.placeholder
        data = without_nul(bytes(loaded.get_body(None, False)))
        return b"%b {%d}\r\n%b" % (name, len(data), data)

    return render


def _pymaps(attribute: FetchAttribute) -> Render:
    """Any other attribute, by pymap's (or GatewayAttributes') own value class, written
    as `DynamicFetchValue.__bytes__` writes it (imap_view/pymap_speedups.py) with the
    attribute's name formatted once per plan (pymap made `for_response` anew for every
    value, its header list sorted and joined each time)."""
    simple = _SIMPLE.get(attribute.value)
    loaded_type = _LOADED.get(attribute.value)
    prefix = bytes(attribute.for_response) + b" "
    if simple is not None:
        simple_type = simple

        def simple_value(
            message: MessageInterface, selected: SelectedMailbox, loaded: Loaded
        ) -> bytes:
            value = simple_type(attribute, message=message, selected=selected).get_value()
            data: bytes = prefix + value_part(value)
            return data

        return simple_value
    if loaded_type is None:
        raise KeyError(attribute.value)
    value_type = loaded_type

    def loaded_value(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
        if loaded is None:
            return prefix + MessageAttributes.placeholder
        value = value_type(attribute, message=message, get_loaded=_Provider(loaded))
        data: bytes = prefix + value_part(value.get_value(loaded))
        return data

    return loaded_value


_DIRECT: Mapping[bytes, Render] = MappingProxyType(
    {
        b"UID": _uid,
        b"FLAGS": _flags,
        b"MODSEQ": _modseq,
        b"ENVELOPE": _envelope,
        b"BODYSTRUCTURE": _body_structure,
        b"INTERNALDATE": _internal_date,
    }
)
_WHOLE = frozenset({b"BODY", b"BODY.PEEK", b"RFC822"})


def _is_whole(attribute: FetchAttribute) -> bool:
    """`BODY[]`, `BODY.PEEK[]` or `RFC822`: the whole message, no part, no range."""
    name, section = attribute.value, attribute.section
    whole = section is not None and not section.parts and section.specifier is None
    return name in _WHOLE and attribute.partial is None and (whole or name == b"RFC822")


def _render_of(attribute: FetchAttribute) -> Render:
    name = attribute.value
    direct = _DIRECT.get(name)
    if direct is not None:
        return remembered(attribute, direct) if name in _OF_CONTENT else direct
    if name == b"RFC822.SIZE":
        return remembered(attribute, _size)
    if _is_whole(attribute):
        return _whole_body(bytes(attribute.for_response))
    if name in _SIMPLE:
        return _pymaps(attribute)
    return remembered(attribute, _pymaps(attribute))  # BODY[…], RFC822.HEADER, BINARY …


_OF_CONTENT = frozenset({b"ENVELOPE", b"BODYSTRUCTURE"})  # read from the content alone


def whole_only(attributes: Iterable[FetchAttribute]) -> bool:
    """Whether a FETCH writes of the content only whole messages and sizes (mbsync's
    `UID FETCH n (BODY.PEEK[])`): their bytes are all it needs, unparsed."""
    simple = _SIMPLE
    return all(a.value in simple or a.value == b"RFC822.SIZE" or _is_whole(a) for a in attributes)


class FetchPlan:
    """A FETCH command's attributes, each with the function that writes it (in order,
    once each: pymap's response keeps one value per attribute)."""

    __slots__ = ["_renders", "attributes", "kept", "loads", "requirement", "whole"]

    def __init__(self, attributes: Iterable[FetchAttribute]) -> None:
        self.attributes = list(dict.fromkeys(attributes))
        self.requirement = FetchRequirement.reduce(a.requirement for a in self.attributes)
        # Only values read from the content need a load: UID, FLAGS, MODSEQ,
        # INTERNALDATE … are the message's own.
        simple = _SIMPLE
        self.loads = any(a.value not in simple for a in self.attributes)
        self._renders = [_render_of(a) for a in self.attributes]
        # Whole messages and sizes only (mbsync's `UID FETCH n (BODY.PEEK[])`): their
        # bytes are all it writes, so they are loaded unparsed (imap_view/contents.py).
        # Sizes alone are a listing's: the kept summaries hold them.
        self.whole = (
            self.loads
            and whole_only(self.attributes)
            and any(_is_whole(a) for a in self.attributes)
        )
        # A listing: loaded as kept summaries (imap_view/kept_contents.py).
        self.kept = self.loads and not self.whole and kept_only(self.attributes)

    def line(
        self,
        number: int,
        message: MessageInterface,
        selected: SelectedMailbox,
        loaded: Loaded,
        merged: Mapping[FetchAttribute, FetchValue] | None = None,
    ) -> bytes:
        """The message's line; with `merged` (values a command's untagged updates gave
        for it), those values in place of the plan's for the same attributes and the
        others after, as pymap's `FetchResponse.merge` orders them."""
        if merged:
            values = b" ".join(
                [
                    *(
                        bytes(merged[attribute])
                        if attribute in merged
                        else render(message, selected, loaded)
                        for attribute, render in zip(self.attributes, self._renders, strict=True)
                    ),
                    *(bytes(v) for a, v in merged.items() if a not in self.attributes),
                ]
            )
        else:
            values = b" ".join([render(message, selected, loaded) for render in self._renders])
        return b"* %d FETCH (%b)\r\n" % (number, values)


_PLANS: dict[tuple[FetchAttribute, ...], FetchPlan] = {}
_PLANS_MAX = 256


def plan_of(attributes: Sequence[FetchAttribute]) -> FetchPlan:
    """The plan of these attributes, made once: a client sends the same FETCH items
    again and again (mbsync's `UID FETCH n (BODY.PEEK[])` once per message)."""
    key = tuple(attributes)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        plan = _PLANS[key] = FetchPlan(attributes)
    return plan


class FetchLine(UntaggedResponse):
    """One message's FETCH response, written by its command's plan; `merged`, the
    values of the command's untagged `FETCH` updates for the same message (another
    session's STORE changed its flags), whose values win."""

    def __init__(
        self,
        number: int,
        message: MessageInterface,
        selected: SelectedMailbox,
        plan: FetchPlan,
        merged: Mapping[FetchAttribute, FetchValue] | None = None,
    ) -> None:
        as_untagged(self)  # pymap's UntaggedResponse.__init__(), without its chain
        self.seq = number
        self.message = message
        self.selected = selected
        self.plan = plan
        self.merged = merged

    @property
    def text(self) -> bytes:
        return b"%d FETCH" % self.seq

    @property
    def merge_key(self) -> int:
        return self.seq

    def merge(self, other: FetchResponse) -> FetchLine:  # type: ignore[override]
        """pymap's merge (the other's values win), still written by the plan."""
        if other.seq != self.seq:
            raise ValueError(other)
        merged = other.data if not self.merged else {**self.merged, **other.data}
        return FetchLine(self.seq, self.message, self.selected, self.plan, merged)

    def values(self) -> GatewayAttributes:
        plan = self.plan
        return GatewayAttributes(self.message, self.selected, plan.attributes, plan.requirement)

    def as_fetch_response(self) -> FetchResponse:
        values = self.values()
        if not self.merged:
            return FetchResponse(self.seq, values, writing_hook=values.load_hook())
        data = {value.attribute: value for value in values} | dict(self.merged)
        return FetchResponse(self.seq, data.values(), writing_hook=values.load_hook())

    async def async_write(self, writer: WriteStream) -> None:
        plan = self.plan
        message = self.message
        loaded: Loaded = None
        if plan.whole and isinstance(message, Message):
            loaded = await message.load_bytes(plan.requirement)
        elif plan.kept and isinstance(message, Message):
            loaded = await message.load_kept(plan.requirement)
        elif plan.loads:
            loaded = await message.load_content(plan.requirement)
        writer.write(plan.line(self.seq, self.message, self.selected, loaded, self.merged))

    def write(self, writer: WriteStream) -> None:
        """Outside `async_write` (a log line): content values as pymap's placeholder."""
        writer.write(self.plan.line(self.seq, self.message, self.selected, None, self.merged))
