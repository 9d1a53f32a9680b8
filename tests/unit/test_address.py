"""The one address parser: table tests for the spec's examples, properties for the rest."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.address import (
    NEW_SESSION,
    Address,
    is_valid_alias,
    is_valid_name,
    normalize_alias,
    normalize_name,
    parse_address,
    parse_email,
    parse_native,
)
from core.errors import InvalidAddress

D = "agentmail.localhost"

# RFC 5322 §3.2.3, strictly: atext runs joined by single dots.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
DOT_ATOM = re.compile(rf"{_ATEXT}+(?:\.{_ATEXT}+)*")

# --- table tests -------------------------------------------------------------------

EMAIL_TABLE = [
    ("jianf@", "jianf@D"),
    ("jianf@.new", "jianf++new@D"),
    ("builder@ModelRouter", "builder+ModelRouter@D"),
    ("pi@root.fix-leak", "pi+root+fix-leak@D"),
    ("pi@root.new", "pi+root+new@D"),
    ("opencode@/home/u/proj", "opencode+/home/u/proj@D"),
    ("pi@/srv/app.v2.", "pi+/srv/app.v2@D"),
]


@pytest.mark.parametrize(("native", "email"), EMAIL_TABLE)
def test_email_table_both_ways(native: str, email: str) -> None:
    email = email.replace("@D", "@" + D)
    assert parse_native(native).email(D) == email
    assert parse_email(email, D).native() == native
    assert parse_address(email, D) == parse_address(native, D) == parse_native(native)


NATIVE_TABLE = [
    # text, structured, canonical native
    ("pi@root", Address("pi", "root"), "pi@root"),
    ("pi@root.new", Address("pi", "root", NEW_SESSION), "pi@root.new"),
    ("pi@root.fix-leak", Address("pi", "root", "fix-leak"), "pi@root.fix-leak"),
    ("jianf@", Address("jianf"), "jianf@"),
    ("jianf@.new", Address("jianf", "", "new"), "jianf@.new"),
    ("builder@ModelRouter", Address("builder", "ModelRouter"), "builder@ModelRouter"),
    ("opencode@/home/u/proj", Address("opencode", "/home/u/proj"), "opencode@/home/u/proj"),
    ("pi@/srv/app.v2.", Address("pi", "/srv/app.v2"), "pi@/srv/app.v2."),
    ("pi@/srv/app.v2", Address("pi", "/srv/app", "v2"), "pi@/srv/app.v2"),
    ("pi@foo..", Address("pi", "foo."), "pi@foo.."),
    ("pi@.", Address("pi"), "pi@"),
    ("pi@..", Address("pi", "."), "pi@.."),
    ("pi@.fix-leak", Address("pi", "", "fix-leak"), "pi@.fix-leak"),
    ("pi@foo..fix", Address("pi", "foo.", "fix"), "pi@foo..fix"),
    ("pi@new", Address("pi", "new"), "pi@new"),
    ("pi@v1.2", Address("pi", "v1", "2"), "pi@v1.2"),
    ("pi@a./b", Address("pi", "a./b"), "pi@a./b"),
    ("pi@a.b/c", Address("pi", "a.b/c"), "pi@a.b/c"),
    ("Pi.Bot@Root.FIX", Address("pi.bot", "Root", "fix"), "pi.bot@Root.fix"),
    ("PI@x.NEW", Address("pi", "x", "new"), "pi@x.new"),
    ("pi@x.Fix.", Address("pi", "x.Fix"), "pi@x.Fix."),
    ("pi@/home/用户", Address("pi", "/home/用户"), "pi@/home/用户"),
    ("pi@a+b=c<d>", Address("pi", "a+b=c<d>"), "pi@a+b=c<d>"),
]


@pytest.mark.parametrize(("text", "address", "canonical"), NATIVE_TABLE)
def test_native_table(text: str, address: Address, canonical: str) -> None:
    assert parse_native(text) == address
    assert address.native() == str(address) == canonical
    assert parse_native(canonical) == address


ESCAPE_TABLE = [
    (Address("pi", "a+b"), "pi+a=2Bb"),
    (Address("pi", "a=b"), "pi+a=3Db"),
    (Address("pi", "/home/用户"), "pi+/home/=E7=94=A8=E6=88=B7"),
    (Address("pi", ".hidden"), "pi+=2Ehidden"),
    (Address("pi", "dir."), "pi+dir=2E"),
    (Address("pi", "a..b"), "pi+a=2E=2Eb"),
    (Address("pi", "."), "pi+=2E"),
    (Address("pi", ".x.", "fix"), "pi+=2Ex=2E+fix"),
    (Address("pi", "a.b"), "pi+a.b"),
    (Address("pi", 'C:\\x"(y),[z];<w>'), "pi+C=3A=5Cx=22=28y=29=2C=5Bz=5D=3B=3Cw=3E"),
    (Address("pi", "", "fix"), "pi++fix"),
]


@pytest.mark.parametrize(("address", "local"), ESCAPE_TABLE)
def test_email_escaping(address: Address, local: str) -> None:
    email = address.email(D)
    assert email == f"{local}@{D}"
    assert DOT_ATOM.fullmatch(local)
    assert parse_email(email, D) == address


LENIENT_EMAIL_TABLE = [
    ("Builder+ModelRouter+FIX@AgentMail.LocalHost", Address("builder", "ModelRouter", "fix")),
    (" <Pi+Root+NEW@AGENTMAIL.localhost> ", Address("pi", "Root", "new")),
    ("pi+/home/=e7=94=a8=e6=88=b7@" + D, Address("pi", "/home/用户")),
    ("pi+a=2bb@" + D, Address("pi", "a+b")),
    ("pi+/home/用户@" + D, Address("pi", "/home/用户")),  # raw UTF-8 (RFC 6531)
    ("pi+.x@" + D, Address("pi", ".x")),  # a raw dot after `+` is legal dot-atom
    ("pi+x.+fix@" + D, Address("pi", "x.", "fix")),
    ("pi+=2E=2e@" + D, Address("pi", "..")),
    ("pi+@" + D, Address("pi")),  # empty tag: same as pi@D
]


@pytest.mark.parametrize(("text", "address"), LENIENT_EMAIL_TABLE)
def test_email_parse_is_lenient_where_unambiguous(text: str, address: Address) -> None:
    assert parse_email(text, D) == address
    assert parse_email(text, D.upper()) == address


def test_domain_is_kept_as_given_and_path_case_preserved() -> None:
    address = parse_native("builder@ModelRouter.FIX")
    assert address == Address("builder", "ModelRouter", "fix")
    assert address.email("Mail.Example.ORG") == "builder+ModelRouter+fix@Mail.Example.ORG"
    assert parse_native("pi@Root") != parse_native("pi@root")


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("pi+root+fix@" + D, Address("pi", "root", "fix")),
        ("<Pi+Root@AGENTMAIL.localhost>", Address("pi", "Root")),
        ("pi@root.fix", Address("pi", "root", "fix")),
        ("  pi@root  ", Address("pi", "root")),
        ("<jianf@.new>", Address("jianf", "", "new")),
        ("<pi@agentmail.localhost.>", Address("pi", "agentmail.localhost")),
        # `@D` with no other `@` is the email form, never the native path `agentmail`:
        ("pi@" + D, Address("pi")),
        ("pi@other.domain", Address("pi", "other", "domain")),
    ],
)
def test_parse_address_picks_the_form(text: str, address: Address) -> None:
    assert parse_address(text, D) == address


def test_properties_and_with_session() -> None:
    a = Address("pi", "root")
    assert (a.is_new, a.alias) == (False, None)
    assert (a.with_session("NEW").is_new, a.with_session("NEW").alias) == (True, None)
    assert a.with_session("Fix-Leak") == Address("pi", "root", "fix-leak")
    assert a.with_session("fix").alias == "fix"
    assert a.with_session("fix").with_session(None) == a
    with pytest.raises(InvalidAddress, match=re.escape("bad.x")):
        a.with_session("bad.x")


def test_name_and_alias_helpers() -> None:
    assert is_valid_name("Builder") and is_valid_name("a.b-c_d") and is_valid_name("a" * 64)
    assert not any(map(is_valid_name, ["", "-a", "a.", "a..b", "a b", "a+b", "a" * 65, "é"]))
    assert normalize_name("Builder") == "builder"
    assert is_valid_alias("fix-leak") and is_valid_alias("FIX") and is_valid_alias("a" * 64)
    assert not any(map(is_valid_alias, ["new", "NEW", "", "-a", "a.b", "a" * 65, "\u212a"]))
    assert normalize_alias("Fix-Leak") == "fix-leak"
    with pytest.raises(InvalidAddress, match="reserved"):
        normalize_alias("New")
    with pytest.raises(InvalidAddress, match=re.escape("'a.b'")):
        normalize_alias("a.b")
    with pytest.raises(InvalidAddress, match="'a b'"):
        normalize_name("a b")


INVALID = [
    ("address", "<<pi@D>>", "'<pi'"),  # one pair of brackets only
    ("native", "pi", "'@'"),
    ("native", "@root", "invalid name ''"),
    ("native", "Foo Bar@x", "'Foo Bar'"),
    ("native", "-pi@x", "'-pi'"),
    ("native", "pi.@x", "'pi.'"),
    ("native", "p..i@x", "'p..i'"),
    ("native", "a" * 65 + "@x", "a" * 65),
    ("native", "pi+x@root", "'pi+x'"),
    ("native", "pi@my path", "' '"),
    ("native", "pi@a@b", "'@'"),
    ("native", "pi@a\x00b.fix", "'\\x00'"),
    ("native", "pi@" + "a" * 1025, "1025"),
    ("native", " pi@root", "' pi'"),
    ("email", "pi+a=@D", "'='"),
    ("email", "pi+a=4@D", "'=4'"),
    ("email", "pi+a=ZZ@D", "'=ZZ'"),
    ("email", "pi+=FF@D", "'=FF'"),
    ("email", "pi+=C3@D", "'=C3'"),
    ("email", "pi+=ED=A0=80@D", "'=ED=A0=80'"),
    ("email", "pi+a+b+c@D", "'pi+a+b+c'"),
    ("email", "pi+root@example.com", "'example.com'"),
    ("email", "pi+root@agentmail.localhost.evil", "'agentmail.localhost.evil'"),
    ("email", "@D", "empty local part"),
    ("email", "pi", "'@'"),
    ("email", "pi+root+Bad.Alias@D", "'Bad.Alias'"),
    ("email", "pi++@D", "invalid session ''"),
    ("email", "Foo Bar+x@D", "'Foo Bar'"),
    ("email", "p..i@D", "'p..i'"),
    ("email", "pi+a..b@D", "'a..b'"),
    ("email", "pi+dir.@D", "'dir.'"),
    ("email", "pi+a b@D", "' '"),
    ("email", 'pi+a"b@D', "'\"'"),
    ("email", "pi+a=40b@D", "'@'"),
    ("email", "pi+=20@D", "' '"),
    ("email", "pi+a@b@D", "'@'"),
    ("address", "pi@a@agentmail.localhost", "'@'"),
    ("address", "pi+a=ZZ@D", "'=ZZ'"),
    ("address", "Foo Bar@root", "'Foo Bar'"),
]


PARSERS: dict[str, Callable[[str], Address]] = {
    "native": parse_native,
    "email": lambda text: parse_email(text, D),
    "address": lambda text: parse_address(text, D),
}


@pytest.mark.parametrize(("form", "text", "piece"), INVALID)
def test_invalid_inputs(form: str, text: str, piece: str) -> None:
    with pytest.raises(InvalidAddress) as info:
        PARSERS[form](text.replace("@D", "@" + D))
    assert piece in str(info.value), str(info.value)


@pytest.mark.parametrize(
    ("build", "piece"),
    [
        (lambda: Address("Pi"), "'Pi'"),
        (lambda: Address("pi", "a b"), "' '"),
        (lambda: Address("pi", "a@b"), "'@'"),
        (lambda: Address("pi", "", "Fix"), "'Fix'"),
        (lambda: Address("pi", "", "bad.x"), "'bad.x'"),
        (lambda: Address("pi", "", ""), "''"),
        (lambda: Address("pi").email(""), "domain"),
    ],
)
def test_an_invalid_address_cannot_exist(build: Callable[[], object], piece: str) -> None:
    with pytest.raises(InvalidAddress) as info:
        build()
    assert piece in str(info.value), str(info.value)


# --- properties ----------------------------------------------------------------------

_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"


def _word(max_size: int) -> st.SearchStrategy[str]:
    """A letter or digit, then up to max_size - 1 of a-z 0-9 _ - (from_regex is slower)."""
    return st.builds(
        operator.add, st.sampled_from(_ALNUM), st.text(_ALNUM + "_-", max_size=max_size - 1)
    )


names = st.lists(_word(13), min_size=1, max_size=4).map(".".join) | st.sampled_from(
    ["a" * 64, "0.-_", "x"]
)
aliases = _word(64).filter(lambda s: s != NEW_SESSION)
sessions = st.none() | st.just(NEW_SESSION) | aliases
path_chars = st.sampled_from(list("/.+=-_~!#$%&'*?^`{|}\"(),:;<>[]\\aZ09")) | st.characters(
    exclude_categories=("C", "Z"), exclude_characters="@"
)
plain_paths = st.text(path_chars, max_size=30)
paths = st.one_of(
    plain_paths,
    # path text that ends like a session part, so native needs its trailing dot
    st.tuples(
        plain_paths, st.sampled_from([".", ".."]), aliases | st.sampled_from(["new", "NEW", "Fix"])
    ).map("".join),
    st.lists(st.sampled_from([".", "..", "a", "/", "+", "=", "用"]), max_size=8).map("".join),
)
addresses = st.builds(Address, names, paths, sessions)
FAST = settings(max_examples=300, deadline=None)


@FAST
@given(addresses)
def test_structured_native_structured(address: Address) -> None:
    assert parse_native(address.native()) == address
    if not address.native().lower().endswith("@" + D):  # `pi@agentmail.localhost`: email form
        assert parse_address(address.native(), D) == address


@FAST
@given(addresses)
def test_structured_email_structured_as_ascii_dot_atom(address: Address) -> None:
    email = address.email(D)
    local, _, domain = email.rpartition("@")
    assert email.isascii() and domain == D
    assert DOT_ATOM.fullmatch(local), local
    assert parse_email(email, D) == address
    assert parse_address(f"<{address.email(D.upper())}>", D) == address


@FAST
@given(addresses)
def test_native_email_native(address: Address) -> None:
    text = address.native()
    assert parse_email(parse_native(text).email(D), D).native() == text


@FAST
@given(addresses)
def test_name_and_session_are_case_insensitive(address: Address) -> None:
    rest = address.native()[len(address.name) :]
    if address.session is not None:
        rest = rest[: -len(address.session)] + address.session.upper()
    assert parse_native(address.name.upper() + rest) == address
    local = address.email(D)[: -len(D) - 1]
    if address.session is not None:
        local = local[: -len(address.session)] + address.session.upper()
    assert (
        parse_email(address.name.upper() + local[len(address.name) :] + "@" + D.upper(), D)
        == address
    )


def _only_invalid_address(parse: Callable[[str], Address], text: str) -> None:
    """Any text either parses to an Address that round-trips, or raises InvalidAddress."""
    try:
        address = parse(text)
    except InvalidAddress:
        return
    assert parse_native(address.native()) == address
    assert parse_email(address.email(D), D) == address


fuzz_text = st.text() | st.text(st.sampled_from("pi+=.@aF0 Z/xé\x00<>")).map(lambda t: t + "@" + D)


@FAST
@given(fuzz_text)
def test_parse_native_only_raises_invalid_address(text: str) -> None:
    _only_invalid_address(PARSERS["native"], text)


@FAST
@given(fuzz_text)
def test_parse_email_only_raises_invalid_address(text: str) -> None:
    _only_invalid_address(PARSERS["email"], text)


@FAST
@given(fuzz_text)
def test_parse_address_only_raises_invalid_address(text: str) -> None:
    _only_invalid_address(PARSERS["address"], text)
