"""A platform's session title as the conversation's alias, and the settled alias back.

The reference's rule (seeds: "平台叫什么本侧就叫什么"): a platform that names its
sessions (opencode titles each from the first prompt with its small model) names
the conversation too. The bridge offers the title's slug as the alias (`POST
/sessions/{id}/sync`); the gateway settles it — a taken alias gets `-2`, a human's
rename always wins — and the platform then shows the settled alias as the session's
title wherever it differs, so the name a human sees in the platform is the name
that reaches the conversation by mail (two names drifting apart would make the one
seen in the platform undeliverable).
"""

from __future__ import annotations

from slugify import slugify

from bridges.client import AgentClient

MAX_ALIAS = 64  # the gateway's limit (docs/architecture: 1 to 64 of a-z 0-9 _ -)
RESERVED = "new"  # `.new` means "a new conversation"


def alias_of(title: str) -> str | None:
    """The alias a title asks for: the gateway's own slug rule; None when nothing is left."""
    slug = slugify(title, max_length=MAX_ALIAS, word_boundary=True, separator="-").strip("-_")
    return slug if slug and slug != RESERVED else None


async def settle_alias(client: AgentClient, conversation: str, title: str) -> str | None:
    """Offer the title's alias; the alias to show as the platform's title instead, when
    the gateway settled on another (taken, or a human's rename), else None."""
    wanted = alias_of(title)
    if wanted is None:
        return None
    settled = (await client.sync_session(conversation, session_alias=wanted)).session_alias
    return settled if settled and settled != wanted else None
