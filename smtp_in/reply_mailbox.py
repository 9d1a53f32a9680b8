"""The reply mailbox: replies from outside collected over IMAP, for a host that cannot
receive on port 25 (`AGENTMAIL_REPLY_MAILBOX=imaps://user@host/MAILBOX`).

The provider takes the domain's mail (reply addresses and bounce addresses alike) into
one mailbox; every replica watches it (IDLE where offered, else a poll each
`AGENTMAIL_REPLY_MAILBOX_POLL_SECONDS`) and takes each new message once
(core/replies/collected.py): a reply address whose token verifies is stored as the MX
listener stores it (smtp_in/outside_intake.py), judged with no SMTP connection, so only
an aligned DKIM pass decides (core/replies/proof.py); a bounce becomes its notice; any
other message is passed over. Messages over the size limit are passed over with a
warning. The mailbox is only read (`BODY.PEEK`): the provider's retention applies.
A lost connection is made again after a wait that doubles, up to 15 minutes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy.orm import Session

from core.archive.imap_source import parse_imap_url
from core.archive.imap_watch import WatchedMailbox
from core.mailauth.check import judge
from core.relay.envelope import envelope_id_in_address
from core.replies.collected import claim_uid, read_cursor, recipient_candidates, skip_uid
from core.replies.recipients import accepted_recipient
from core.secrets.box import SecretBox
from core.secrets.reply_token import ensure_reply_key
from core.store.engine import Store
from smtp_in.outside_intake import take_bounce, take_collected

__all__ = ["ReplyMailbox"]

log = logging.getLogger("agentmail.reply_mailbox")

BATCH: Final = 100  # messages taken in one round before the mailbox is searched again
MAX_WAIT: Final = 900.0  # seconds between tries while the mailbox cannot be reached


@dataclass(frozen=True, slots=True)
class ReplyMailbox:
    store: Store
    domain: str
    box: SecretBox
    url: str
    password: str
    poll_seconds: float
    max_bytes: int
    cafile: Path | None = None

    async def run(self) -> None:
        """Watch the mailbox until cancelled."""
        parse_imap_url(self.url)  # a wrong setting fails at start-up, not in the loop
        failures = 0
        while True:
            mailbox = WatchedMailbox(parse_imap_url(self.url), self.password, cafile=self.cafile)
            try:
                await mailbox.open()
                failures = 0
                while True:
                    while await self.collect(mailbox) == BATCH:
                        pass
                    await mailbox.wait_for_news(self.poll_seconds)
            except Exception as error:  # the server, the network or the store: try again
                failures += 1
                log.warning("reply mailbox %s: %s", self.url, error)
            finally:
                await mailbox.close()
            wait = min(MAX_WAIT, self.poll_seconds * 2 ** min(failures - 1, 10))
            log.info("reply mailbox: connecting again in %.0f s", wait)
            await asyncio.sleep(wait)

    async def collect(self, mailbox: WatchedMailbox) -> int:
        """Take the messages past the cursor, at most `BATCH`; how many were looked at."""
        uidvalidity = mailbox.uidvalidity
        cursor = await self.store.read(lambda s: read_cursor(s, self.url, uidvalidity))
        small, large = await mailbox.uids_after(cursor.uid if cursor else 0, self.max_bytes)
        uids = sorted(small + large)[:BATCH]
        key = await ensure_reply_key(self.store, self.box) if uids else b""
        for uid in uids:
            if uid in large:
                log.warning(
                    "reply mailbox: UID %d is over %d bytes: passed over", uid, self.max_bytes
                )
                await skip_uid(self.store, self.url, uidvalidity, uid)
                continue
            await self._take(key, uidvalidity, uid, await mailbox.message(uid))
        return len(uids)

    async def _take(self, key: bytes, uidvalidity: int, uid: int, raw: bytes) -> None:
        for address in await asyncio.to_thread(recipient_candidates, raw):  # parsing: CPU
            if envelope_id_in_address(address, self.domain) is not None:
                await take_bounce(self.store, self.domain, raw, address)
                break  # taken: a bounce is recorded once however often it is read
            accepted = await accepted_recipient(self.store, key, self.domain, address, "")
            if accepted is None or accepted.token_id is None:
                continue
            verdict = await judge(raw, ip="", helo="", mail_from="")

            def claim(message_id: str | None) -> Callable[[Session], bool]:
                return lambda s: claim_uid(s, self.url, uidvalidity, uid, message_id)

            stored = await take_collected(self.store, self.domain, accepted, raw, verdict, claim)
            if stored is not None:
                log.info("reply mailbox: UID %d stored (%s)", uid, stored.reason)
            return
        await skip_uid(self.store, self.url, uidvalidity, uid)
