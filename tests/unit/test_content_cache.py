"""The IMAP content cache holds at most its size in memory, not in message bytes.

It once counted each parsed message by its length, while the parsed objects hold
about ten times that for a short mail (~23 KB for a 2.4 KB one): a "64 MiB" cache
could grow to ~640 MB, which a ten-minute soak showed as a climbing RSS.
"""

from __future__ import annotations

import gc
import tracemalloc

from pymap.mime import MessageContent

from imap_view.content_cache import ContentCache, memory_of

LIMIT = 1024 * 1024


def _message(n: int) -> bytes:
    body = ("please look at the failing health check in the staging cluster " * 40)[:2000]
    return (
        f"Message-ID: <m{n}@agentmail.localhost>\r\nDate: Mon, 1 Dec 2025 10:00:00 +0000\r\n"
        f"From: a{n}+ws <a{n}+ws@agentmail.localhost>\r\nTo: h00@agentmail.localhost\r\n"
        f"Subject: answer {n}\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


def test_memory_of_counts_what_parsing_allocated() -> None:
    raw = _message(1)
    MessageContent.parse(_message(0))  # the first parse of a process compiles and caches
    gc.collect()
    gc.disable()  # nothing else freed or made while measuring
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        content = MessageContent.parse(raw)
        allocated = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        gc.enable()
    assert allocated > 5 * len(raw)  # why counting the length was wrong
    assert 0.8 * allocated <= memory_of(content) <= 1.25 * allocated


def test_a_full_cache_holds_about_its_limit_in_memory() -> None:
    cache = ContentCache(max_bytes=LIMIT)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(200):  # ~4.6 MB of parsed messages through a 1 MiB cache
            content = MessageContent.parse(_message(n))
            cache.put(n, content, memory_of(content))
        del content
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert cache.held_bytes <= LIMIT
    assert held <= 1.25 * LIMIT, held
    assert cache.get(199) is not None and cache.get(0) is None  # the oldest went first


def test_the_bytes_of_evicted_contents_are_kept_in_their_own_quarter() -> None:
    """A client reading more mails than fit parsed (mbsync's pull of a large folder)
    finds their bytes still kept: parsed again, never read from the store and
    rendered again. The bytes take a quarter of the limit, the parsed the rest."""
    cache = ContentCache(max_bytes=LIMIT)
    raws = [_message(n) for n in range(200)]
    for n, raw in enumerate(raws):
        content = MessageContent.parse(raw)
        cache.put(n, content, memory_of(content), raw)
    assert cache.held_bytes <= LIMIT
    assert cache.raw_max_bytes == LIMIT // 4
    assert cache.get(0) is None and cache.get(199) is not None  # parsed: the newest only
    parsed_kept = sum(cache.get(n) is not None for n in range(200))
    raw_kept = [n for n in range(200) if cache.get_raw(n) is not None]
    assert raw_kept == list(range(200 - len(raw_kept), 200))  # the oldest went first
    assert len(raw_kept) > 2 * parsed_kept  # bytes are far smaller than parsed contents
    assert cache.get_raw(raw_kept[0]) == raws[raw_kept[0]]
