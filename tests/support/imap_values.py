"""FETCH responses read as values, the same way from any server (the Dovecot differential test).

`read_response` reads a command's response whole, literals (`{n}`, RFC 3516's
literal8 `~{n}`) by their length; `fetch_items` turns each `* n FETCH (…)` into
{item name: value}, where a value is bytes (atoms, quoted strings, literals), int,
None (NIL) or a list. Item names keep their section (`BODY[1.2]`, `BINARY[1]`).
"""

from __future__ import annotations

import asyncio
import re

__all__ = ["Value", "fetch_items", "read_response"]

Value = bytes | int | None | list["Value"]

_LITERAL = re.compile(rb"~?\{(\d+)\+?\}\r\n$")


async def read_response(reader: asyncio.StreamReader, tag: bytes, timeout: float = 60) -> bytes:
    """Everything up to and including the tagged line, literals included whole."""
    out = bytearray()
    while True:
        line = await asyncio.wait_for(reader.readline(), timeout)
        assert line, (tag, bytes(out[-300:]))  # the connection ended before the reply
        out += line
        literal = _LITERAL.search(line)
        if literal is not None:
            out += await asyncio.wait_for(reader.readexactly(int(literal.group(1))), timeout)
            continue
        if line.startswith(tag + b" "):
            return bytes(out)


def _value(data: bytes, pos: int) -> tuple[Value, int]:
    while data[pos : pos + 1] == b" ":
        pos += 1
    head = data[pos : pos + 1]
    if head == b"(":
        items: list[Value] = []
        pos += 1
        while True:
            while data[pos : pos + 1] == b" ":
                pos += 1
            if data[pos : pos + 1] == b")":
                return items, pos + 1
            item, pos = _value(data, pos)
            items.append(item)
    if head == b'"':
        out = bytearray()
        pos += 1
        while data[pos : pos + 1] != b'"':
            if data[pos : pos + 1] == b"\\":
                pos += 1
            out += data[pos : pos + 1]
            pos += 1
        return bytes(out), pos + 1
    literal = re.compile(rb"~?\{(\d+)\+?\}\r\n").match(data, pos)
    if literal is not None:
        end = literal.end() + int(literal.group(1))
        return data[literal.end() : end], end
    start = pos
    depth = 0
    while pos < len(data):
        char = data[pos : pos + 1]
        if char == b"[":
            depth += 1
        elif char == b"]":
            depth -= 1
        elif depth == 0 and char in (b" ", b")", b"(", b"\r"):
            break
        pos += 1
    atom = data[start:pos]
    if atom.upper() == b"NIL":
        return None, pos
    if atom.isdigit():
        return int(atom), pos
    return atom, pos


def fetch_items(response: bytes) -> dict[int, dict[bytes, Value]]:
    """Per message sequence number, its FETCH items by name (upper case)."""
    out: dict[int, dict[bytes, Value]] = {}
    pos = 0
    fetch = re.compile(rb"\* (\d+) FETCH ")
    while (found := fetch.search(response, pos)) is not None:
        values, pos = _value(response, found.end())
        assert isinstance(values, list)
        items = out.setdefault(int(found.group(1)), {})
        for name, value in zip(values[::2], values[1::2], strict=True):
            assert isinstance(name, bytes)
            items[name.upper()] = value
    return out
