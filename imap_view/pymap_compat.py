"""pymap's private internals: every one imap_view/ uses is listed and checked here, and
the data ones are reached only through the functions below.

pymap (pinned) is the protocol engine; the gateway extends it where it has no public
hook: its message tables read by bisection and filled from a shared base, its response
merge table reordered, FETCH attribute tables extended, parsers and per-message
builders subclassed, the selected view forked without copies. `INTERNALS` names each
internal by the class that holds it; `check()` runs at start-up and in
tests/unit/test_library_compat.py and fails, naming pymap's version, when a release
moved one; tests/unit/test_library_compat.py also fails when a module of imap_view/
uses a private name of pymap that is not listed here.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
from collections.abc import Callable, Mapping
from importlib.metadata import version
from pathlib import Path
from typing import Any

from pymap.bytes import BytesFormat
from pymap.fetch import DynamicLoadedFetchValue, MessageAttributes
from pymap.interfaces.message import CachedMessage
from pymap.message import BaseLoadedMessage
from pymap.mime import MessageContent
from pymap.parsing.response import CommandResponse, UntaggedResponse
from pymap.parsing.response.specials import ListResponse
from pymap.parsing.specials import SequenceSet
from pymap.selected import SynchronizedMessages

__all__ = [
    "INTERNALS",
    "REPLACED",
    "InternalMissing",
    "as_untagged",
    "check",
    "fix_join_arg",
    "forget_rendered",
    "list_response_name",
    "loaded_attributes",
    "loaded_content",
    "loaded_data",
    "loaded_message_getter",
    "mergeable",
    "message_by_uid",
    "replace_untagged",
    "sequence_range",
    "simple_attributes",
    "sorted_uids",
    "uid_set",
    "untagged",
]


class InternalMissing(RuntimeError):
    """An internal of pymap this gateway relies on is not where it was."""


# "module:Class" → its private names imap_view/ reads, writes or overrides (a method
# overridden in a subclass is listed too: pymap must still call it by that name).
INTERNALS: dict[str, tuple[str, ...]] = {
    "pymap.selected:SynchronizedMessages": (
        "_sorted",
        "_cache",
        "_uids",
        "_update",
        "_remove",
    ),
    "pymap.selected:SelectedMailbox": (
        "_messages",
        "_prev",
        "_is_deleted",
        "_kwargs",
        "_hide_expunged",
        "_silenced_flags",
        "_silenced_sflags",
        "_compare",
        "_mailbox_id",
        "_readonly",
        "_permanent_flags",
        "_session_flags",
        "_selected_set",
        "_lookup",
        "_mod_sequence",
    ),
    "pymap.selected:_Frozen": ("uids", "seqs_cache", "flags", "recent", "sflags", "is_deleted"),
    "pymap.parsing.specials:SequenceSet": ("_get_range",),
    "pymap.parsing.response:CommandResponse": ("_untagged", "_mergeable", "_raw"),
    "pymap.parsing.response:Response": ("_code", "_text", "_raw"),
    "pymap.fetch:MessageAttributes": ("_simple_attrs", "_loaded_attrs"),
    "pymap.fetch:DynamicLoadedFetchValue": ("_get_data", "_get_loaded"),
    "pymap.bytes:BytesFormat": ("_fix_join_arg", "_fix_format_arg"),
    "pymap.parsing.response.specials:ListResponse": ("_name",),
    "pymap.message:BaseMessage": ("_email_id", "_thread_id", "_permanent_flags", "_flags_key"),
    "pymap.message:BaseLoadedMessage": (
        "_content",
        "_get_subpart",
        "_get_envelope_structure",
        "_get_size_with_lines",
        "_get_body_structure",
    ),
    "pymap.backend.session:BaseSession": ("_get_selected", "_get_mailbox"),
    "pymap.imap.state:ConnectionState": ("_selected", "_session"),
    "pymap.imap:IMAPConnection": ("_print",),
    "pymap.imap:IMAPServer": ("_config", "_login"),
    "pymap.config:IMAPConfig": ("_tls_enabled",),
    "pymap.parsing.command.auth:AppendCommand": ("_parse_msg",),
    "pymap.search:DateSearchCriteria": ("_get_msg_date",),
    "pymap.parsing.command.select:FetchCommand": ("_check_macros",),
    "pymap.parsing.specials:FetchAttribute": ("_parse_section",),
    "pymap.parsing.command.select:SearchCommand": ("_parse_charset", "_parse_options"),
    "pymap.parsing:Parseable": ("_whitespace_length",),
    "pymap.parsing.response.fetch:BodyStructure": ("_value",),
    "pymap.parsing.response.fetch:EnvelopeStructure": ("_value",),
}


# Public methods the gateway replaces or overrides whose shape it relies on: "module:Class"
# → (method, its parameters). `Mailbox.parse` (a hang on a bad name) and
# `ListTree.list_matching` (a backtracking pattern) for correctness; the formatting ones
# by imap_view/pymap_speedups.py.
REPLACED: dict[str, tuple[str, list[str]]] = {
    "pymap.parsing.specials.mailbox:Mailbox": ("parse", ["buf", "params"]),
    "pymap.listtree:ListTree": ("list_matching", ["self", "ref_name", "filter_"]),
    "pymap.bytes:BytesFormat": ("join", ["self", "data"]),
    "pymap.parsing:Params": ("copy", ["self", "state"]),
}


def _holds(cls: type, name: str) -> bool:
    """`name` is an attribute of `cls`, or assigned to `self` in the pymap module of it
    (or of a base): an instance attribute, set in `__init__`."""
    if hasattr(cls, name):
        return True
    assigned = re.compile(rf"self\.{re.escape(name)}\s*(:[^=\n]*)?=[^=]")
    modules = {k.__module__ for k in cls.__mro__ if k.__module__.startswith("pymap")}
    return any(assigned.search(_source(module)) for module in modules)


@functools.cache
def _source(module: str) -> str:
    path = getattr(sys.modules.get(module), "__file__", None)
    return Path(path).read_text(encoding="utf-8") if path else ""


def _missing() -> list[str]:
    missing = []
    for where, names in INTERNALS.items():
        module_name, _, class_name = where.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            missing.append(where)
            continue
        missing += [f"{module_name}.{class_name}.{n}" for n in names if not _holds(cls, n)]
    for where, (name, wanted) in REPLACED.items():
        module_name, _, class_name = where.partition(":")
        method = getattr(
            getattr(importlib.import_module(module_name), class_name, None), name, None
        )
        if method is None or list(inspect.signature(method).parameters)[: len(wanted)] != wanted:
            missing.append(f"{module_name}.{class_name}.{name}({', '.join(wanted)})")
    get_range = getattr(SequenceSet, "_get_range", None)
    if get_range is not None and list(inspect.signature(get_range).parameters)[:2] != [
        "elem",
        "max_value",
    ]:
        missing.append("SequenceSet._get_range(elem, max_value)")
    return missing


def check() -> None:
    """Raise `InternalMissing` (naming pymap's version) unless every internal in
    `INTERNALS` is where it was."""
    missing = _missing()
    if missing:
        raise InternalMissing(
            f"pymap {version('pymap')} lacks internals imap_view/ relies on: "
            + ", ".join(missing)
            + " (see imap_view/pymap_compat.py and docs/architecture.md)"
        )


# SynchronizedMessages: the UIDs in order, the messages by UID, the tables `_update` fills.
def sorted_uids(synced: SynchronizedMessages) -> list[int]:
    ordered: list[int] = synced._sorted
    return ordered


def message_by_uid(synced: SynchronizedMessages) -> Mapping[int, CachedMessage]:
    return synced._cache


def uid_set(synced: SynchronizedMessages) -> set[int]:
    return synced._uids


def sequence_range(element: Any, highest: int) -> range:
    """One element of a sequence set as the numbers it names, up to `highest` (pymap
    gives a range, or an empty tuple when the element starts past `highest`)."""
    numbers = SequenceSet._get_range(element, highest)
    if isinstance(numbers, range):
        return numbers
    assert not numbers
    return range(0)


# CommandResponse: its untagged lines and the merge table pymap folds FETCH lines with.
def untagged(response: CommandResponse) -> list[UntaggedResponse]:
    return response._untagged


def mergeable(response: CommandResponse) -> dict[Any, int]:
    table: dict[Any, int] = response._mergeable
    return table


def replace_untagged(
    response: CommandResponse, lines: list[UntaggedResponse], table: dict[Any, int]
) -> None:
    """Put `lines` (with their merge `table`) in place of the response's untagged lines,
    and forget its rendered bytes."""
    response._untagged = lines
    response._mergeable = table
    forget_rendered(response)


def forget_rendered(response: CommandResponse) -> None:
    """Drop the response's rendered bytes after its lines changed."""
    response._raw = None


def as_untagged(response: UntaggedResponse) -> None:
    """What `UntaggedResponse.__init__()` sets (no text, code, condition or hook),
    set directly: a FETCH makes one response per message, and pymap's chain of
    initializers was a tenth of a listing's time."""
    fields: Any = response
    fields.tag = b"*"
    fields._code = None
    fields._text = b""
    fields._raw = None
    fields.writing_hook = None


# FETCH attributes and values.
def simple_attributes() -> Mapping[bytes, Any]:
    return MessageAttributes._simple_attrs


def loaded_attributes() -> Mapping[bytes, Any]:
    return MessageAttributes._loaded_attrs


def loaded_data(value: DynamicLoadedFetchValue, loaded: Any, *, binary: bool = False) -> Any:
    """The content a loaded FETCH value names (its section and partial), as pymap reads it."""
    attribute = value.attribute
    return value._get_data(attribute.section, attribute.partial, loaded, binary=binary)


def loaded_message_getter(value: DynamicLoadedFetchValue) -> Any:
    return value._get_loaded


def loaded_content(loaded: BaseLoadedMessage) -> MessageContent | None:
    """The parsed content a loaded message holds, None when it was loaded without
    (pymap's `content` raises then)."""
    return loaded._content


# Formatting and LIST.
fix_join_arg: Callable[[Any], bytes] = BytesFormat._fix_join_arg


def list_response_name(response: ListResponse) -> bytes:
    name: bytes = type(response)._name
    return name
