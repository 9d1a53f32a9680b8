"""Messages over the MIME bounds, in process: what deciding and serving them costs.

    PYTHONPATH=$PWD .venv/bin/python bench/imap_opaque.py [--pymap]

For the 2.1 MB / 60,000-part message, the 1.4 MB / 200,000-line Subject, 18 MB of
quoted-printable soft line breaks and a 4 KB everyday mail: the store-time decision
(`is_opaque`, core/mime/structure.py), the full bounded walk (`mime_structure`) and
IMAP's opaque content (`opaque_content`, imap_view/opaque.py), ms each. With
`--pymap`, pymap's own parse of the first two beside them (what a read cost before
the bounds: tens of seconds and ~1 GB; slow). Figures only, never a failure.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

from pymap.mime import MessageContent

from core.mime.structure import is_opaque, mime_structure
from imap_view.opaque import opaque_content
from tests.integration.test_imap_opaque import folded_subject, many_parts


def _ms(fn: Callable[[], object], rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pymap", action="store_true", help="also time pymap's parse (slow)")
    args = parser.parse_args()
    everyday = (
        b"From: a@x.example\r\nTo: b@x.example\r\nSubject: status\r\n\r\n"
        + b"The deploy went fine; the health check is green again.\r\n" * 70
    )
    messages = {
        "60,000 parts (2.1 MB)": many_parts("a@x.example"),
        "Subject over 200,000 lines (1.4 MB)": folded_subject("a@x.example"),
        "QP soft breaks (18 MB)": b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        + b"=\r\n" * 6_000_000,
        "everyday mail (4 KB)": everyday,
    }
    print(f"{'message':38} {'opaque':>6} {'decide ms':>10} {'walk ms':>9} {'serve ms':>9}")
    for name, raw in messages.items():
        opaque = is_opaque(raw)
        decide = _ms(partial(is_opaque, raw))
        walk = _ms(partial(mime_structure, raw))
        serve = _ms(partial(opaque_content, raw)) if opaque else float("nan")
        print(f"{name:38} {opaque!s:>6} {decide:10.2f} {walk:9.2f} {serve:9.2f}")
    if args.pymap:
        for name, raw in list(messages.items())[:2]:
            parse = _ms(partial(MessageContent.parse, raw), 1)
            print(f"pymap parse, {name}: {parse:.0f} ms")


if __name__ == "__main__":
    main()
