"""The header values SORT and THREAD read, as Dovecot 2.3 reads them.

* `first_mailbox`: RFC 5256 §3's FROM, TO and CC keys, "addr-mailbox of the first
  address" (RFC 3501 §7.4.2): the local part, unquoted; a group's name when the field
  starts with a group (RFC 3501 writes a group's start as an address whose
  addr-mailbox is its name); `MISSING_MAILBOX` for an address that has none, as
  Dovecot fills it in (core/mime/addresses.py reads the list as Dovecot does).
* `sent_time`: RFC 5256 §2.2's sent date, the Date field (RFC 5322 §3.3) in seconds
  since the epoch, read leniently (`.` between hours and minutes, two-digit years,
  RFC 822 zone names; an unknown zone is UTC) or None when it cannot be read
  (src/lib-mail/message-date.c).
* `message_ids`: the msg-ids of Message-ID, In-Reply-To or References (RFC 5322 §3.6.4)
  that THREAD=REFERENCES links by (RFC 5256 §3), without their angle brackets and
  white space; one without `@` is skipped (src/lib-mail/message-id.c).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from core.mime.addresses import MISSING_MAILBOX, address_list
from core.mime.rfc822_lexer import Lexer

__all__ = ["MISSING_MAILBOX", "first_mailbox", "message_ids", "sent_time"]

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_ZONES = {"E": -5 * 60, "C": -6 * 60, "M": -7 * 60, "P": -8 * 60}  # RFC 822 §5.1 [ECMP][SD]T
_WHITE = str.maketrans("", "", " \t\r\n")
_ID_STOP = re.compile(r'[>"(]')  # what ends the plain reading of a msg-id


def first_mailbox(value: str) -> str:
    """The addr-mailbox of the first address of an address list (see module doc)."""
    addresses = address_list(value, limit=1)
    mailbox = addresses[0].mailbox if addresses else None
    return "" if mailbox is None else mailbox


def _zone_minutes(zone: str) -> int:
    """A zone's offset east of UTC in minutes; 0 for one not known (RFC 5322 §4.3)."""
    if len(zone) == 5 and zone[0] in "+-" and zone[1:].isascii() and zone[1:].isdigit():
        minutes = int(zone[1:3]) * 60 + int(zone[3:])
        return minutes if zone[0] == "+" else -minutes
    upper = zone.upper()
    if len(zone) == 1 and zone.isascii():  # military zones, counted as Dovecot counts them
        code = ord(zone)
        if upper < "J":
            return (code - ord("A") + 1) * 60
        if upper == "J":
            return 0
        if upper <= "M":
            return (code - ord("A")) * 60
        return (ord("M") - code) * 60 if upper < "Z" else 0
    if len(zone) == 3 and zone[2] == "T" and upper[0] in _ZONES and upper[1] in "DS":
        return _ZONES[upper[0]] + (60 if upper[1] == "D" else 0)
    return 0


def _token(lexer: Lexer) -> str | None:
    """The next atom ("" at the end), None when what follows is no atom."""
    out: list[str] = []
    if lexer.more and lexer.atom(out) < 0:
        return None
    return "".join(out)


def _two_digits(token: str | None) -> int | None:
    if token is None or len(token) != 2 or not (token.isascii() and token.isdigit()):
        return None
    return int(token)


def _clock(lexer: Lexer) -> tuple[int, int, int] | None:
    """hour ":" minute [":" second], `.` allowed for `:`, a one-digit hour too."""
    hour = _token(lexer)
    if not hour or len(hour) > 2 or not (hour.isascii() and hour.isdigit()):
        return None
    if not lexer.current or lexer.current not in ":.":
        return None
    lexer.position += 1
    lexer.skip()
    minute = _two_digits(_token(lexer))
    if minute is None:
        return None
    second = 0
    if lexer.current and lexer.current in ":.":
        lexer.position += 1
        lexer.skip()
        read = _two_digits(_token(lexer))
        if read is None:
            return None
        second = 59 if read == 60 else read  # a leap second is the second before it
    return int(hour), minute, second


def sent_time(value: str) -> int | None:
    """[day-of-week ","] day month year time [zone]: seconds since the epoch."""
    lexer = Lexer(value)
    lexer.skip()
    day = _token(lexer)
    if day and len(day) == 3:  # a day name, which must be followed by ","
        if lexer.current != ",":
            return None
        lexer.position += 1
        lexer.skip()
        day = _token(lexer)
    if not day or len(day) > 2 or not (day.isascii() and day.isdigit()):
        return None
    month = _token(lexer)
    if not month or len(month) < 3 or month[:3].upper() not in _MONTHS:
        return None
    year = _token(lexer)
    if not year or len(year) not in (2, 4) or not (year.isascii() and year.isdigit()):
        return None
    number = int(year) + (1900 if int(year) >= 70 else 2000) if len(year) == 2 else int(year)
    clock = _clock(lexer)
    if number < 1900 or clock is None:
        return None
    zone = _token(lexer)
    if zone is None:
        return None
    try:
        month_number = _MONTHS.index(month[:3].upper()) + 1
        moment = datetime(number, month_number, int(day), *clock, tzinfo=UTC)
    except ValueError:  # 31 February, hour 24: no such moment
        return None
    return int(moment.timestamp()) - _zone_minutes(zone) * 60


def _spelled_out(lexer: Lexer) -> str | None:
    """A msg-id that is not plain (a quoted local part, comments): id-left "@" id-right
    ">", read after its `<`."""
    left: list[str] = []
    lexer.skip()
    found = lexer.quoted(left) if lexer.current == '"' else lexer.dot_atom(left)
    if found <= 0 or lexer.current != "@":
        return None
    lexer.position += 1
    lexer.skip()
    right: list[str] = []
    if lexer.dot_atom(right) <= 0 or lexer.current != ">":
        return None
    lexer.position += 1
    return "".join(left) + "@" + "".join(right)


def message_ids(value: str) -> list[str]:
    """Every msg-id in the field, in order (see module doc)."""
    found: list[str] = []
    position = 0
    while True:
        opening = value.find("<", position)
        if opening == -1:
            return found
        position = opening + 1
        stop = _ID_STOP.search(value, position)
        if stop is None:
            return found
        end = stop.start()
        if value[end] == ">":
            position = end + 1
            if value.find("@", opening, end) != -1:
                found.append(value[opening + 1 : end].translate(_WHITE))
            continue
        lexer = Lexer(value, position)  # a quoted local part or a comment: token by token
        spelled = _spelled_out(lexer)
        if spelled is not None:
            found.append(spelled)
            position = lexer.position
