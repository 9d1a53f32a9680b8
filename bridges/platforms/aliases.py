"""The alias a platform's session title asks for, by the gateway's own rule for subjects
(`Fix the login bug` → `fix-the-login-bug`, `排查登录问题` → `pai-cha-deng-lu-wen-ti`, at
most 64 characters, never the reserved `new`). The gateway still settles it
(`POST /sessions/{id}/sync`): a taken alias gets `-2`, a human's rename wins."""

from __future__ import annotations

from slugify import slugify

MAX_ALIAS = 64


def alias_of(title: str) -> str | None:
    """A title as an alias, if it makes one."""
    alias = slugify(title, max_length=MAX_ALIAS, word_boundary=True).strip("-_")
    return alias if alias and alias != "new" else None
