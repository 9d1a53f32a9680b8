"""Big buffers go back to the system when they are freed.

glibc's malloc gives a request of 128 KiB or more a mapping of its own, returned
on free, but raises that threshold to the size of the largest such block freed
(up to 32 MiB). After one big message, every later message's buffers (its bytes,
its parsed text, its attachments, a few times 24 MB) come from the heaps of the
threads that parse them, whose freed pages mostly stay with the process: six 24 MB
messages at once left the gateway 350 MB larger for good. Setting the threshold
(`mallopt(M_MMAP_THRESHOLD)`, which also ends its adjustment) keeps every block of
1 MiB or more a mapping of its own: the same six leave it 60 MB larger.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["return_big_buffers"]

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
THRESHOLD = 1024 * 1024


def return_big_buffers() -> bool:
    """Set the threshold on glibc (not where the admin set it with glibc's own
    `MALLOC_MMAP_THRESHOLD_`); True when it was set. Elsewhere nothing changes."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return False
    if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallopt"):
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, THRESHOLD))
