"""Which mails one message to several recipients makes: one per conversation addressed.

A mail is stored in a conversation and delivered to its recipients, so recipients
are resolved to (mailbox, conversation) before anything is written, by the same
functions `send_mail` uses (the one parser, `resolve_endpoint`):

- recipients that name the same mailbox and the same conversation are one
  recipient, however they are spelled (`builder@`, `builder+ModelRouter@`,
  `BUILDER+ModelRouter@`, the workspace's path, the same address twice);
- an address with a session part names its conversation (`+alpha`: that one,
  `+new`: a new one); one without names the mailbox: it goes to the conversation
  the message replies to, else the sender's default conversation with it;
- a recipient without a session part that the `Cc:` header names rides as cc on
  the mail to the first recipient `To:` names (the people a message is copied to
  see it in the conversation it belongs to); other `To:` recipients and Bcc ones
  each get their own mail, in their own conversation;
- recipients whose conversation is the same share one mail: the first is its
  `to`, the others its cc. Two workspaces of one agent are two mailboxes, so they
  never share a mail (a mail has one delivery per name).

So `To: builder+ModelRouter@`, `Cc: builder+ModelRouter+alpha@` is two mails, one
in each conversation, and 26 spellings of one mailbox are one mail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.address import Address, parse_email
from core.errors import DomainError
from core.identity.endpoints import Endpoint, resolve_endpoint
from core.store.engine import Store
from core.store.models import Mail

# Which conversation an address names: ("alias", alias), ("new", mailbox),
# ("reply", conversation id) or ("default", mailbox).
Conversation = tuple[str, object]


@dataclass(slots=True)
class PlannedMail:
    """One mail: `to` and `cc` are the envelope addresses as the client wrote them;
    `names` are its recipients' names (one delivery each)."""

    to: str
    cc: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Plan:
    mails: list[PlannedMail]
    recipients: int  # envelope recipients, as given
    duplicates: int  # those naming a mailbox and conversation named before

    @property
    def shared(self) -> int:
        """Recipients that ride as cc on another recipient's mail."""
        return self.recipients - self.duplicates - len(self.mails)


@dataclass(frozen=True, slots=True)
class _Recipient:
    text: str
    endpoint: Endpoint
    conversation: Conversation
    explicit: bool  # the address has a session part


def _conversation(address: Address, endpoint: Endpoint, reply: str | None) -> Conversation:
    if address.alias is not None:
        return ("alias", address.alias)
    if address.is_new:
        return ("new", endpoint.pair)
    if reply is not None:
        return ("reply", reply)
    return ("default", endpoint.pair)


Resolve = Callable[[Address], Endpoint]


def _resolve(resolve: Resolve, domain: str, text: str, reply: str | None) -> _Recipient:
    address = parse_email(text, domain)
    endpoint = resolve(address)
    explicit = address.session is not None
    return _Recipient(text, endpoint, _conversation(address, endpoint, reply), explicit)


def _keys(
    resolve: Resolve,
    known: Mapping[str, Endpoint],
    domain: str,
    header: Sequence[str],
    reply: str | None,
) -> set[object]:
    """(mailbox, conversation) of each header address of this gateway that resolves."""
    keys: set[object] = set()
    for text in header:
        try:
            found = _resolve(_known_first(known, text, resolve), domain, text, reply)
        except DomainError:
            continue  # someone outside, or not a mailbox: it names no envelope recipient
        keys.add((found.endpoint.pair, found.conversation))
    return keys


def _group(recipients: list[_Recipient]) -> list[PlannedMail]:
    mails: list[tuple[Conversation, PlannedMail]] = []
    for r in recipients:
        for conversation, mail in mails:
            if conversation == r.conversation and r.endpoint.name not in mail.names:
                mail.cc.append(r.text)
                mail.names.add(r.endpoint.name)
                break
        else:
            mails.append((r.conversation, PlannedMail(r.text, names={r.endpoint.name})))
    return [mail for _, mail in mails]


async def plan_mails(
    store: Store,
    domain: str,
    recipients: Sequence[str],
    *,
    to_header: Sequence[str] = (),
    cc_header: Sequence[str] = (),
    reply_to: str | None = None,
    resolved: Mapping[str, Endpoint] | None = None,
) -> Plan:
    """The mails a message to the envelope `recipients` makes (see the module docstring).

    `reply_to` is the id of the stored mail the message answers, if any. `resolved`
    holds the endpoints `RCPT TO` already resolved, by address as written: they are
    not looked up again. One recipient (however often named) is one mail whatever
    the headers say, so that plan reads nothing. Raises the domain error of a
    recipient that no longer resolves (it was checked at RCPT); the write, which
    resolves every address again, is what decides.
    """
    if len(set(recipients)) == 1:
        text = recipients[0]
        name = resolved[text].name if resolved and text in resolved else ""
        return Plan([PlannedMail(text, names={name})], len(recipients), len(recipients) - 1)
    known = dict(resolved or {})

    def run(session: Session) -> Plan:
        reply = None
        if reply_to is not None:
            reply = session.scalar(select(Mail.session_id).where(Mail.id == reply_to))

        def resolve(address: Address) -> Endpoint:
            return resolve_endpoint(session, address)

        return _plan(resolve, known, domain, recipients, to_header, cc_header, reply)

    return await store.read(run)


def _plan(
    resolve_address: Resolve,
    known: Mapping[str, Endpoint],
    domain: str,
    recipients: Sequence[str],
    to_header: Sequence[str],
    cc_header: Sequence[str],
    reply: str | None,
) -> Plan:
    unique: dict[object, _Recipient] = {}
    for text in recipients:
        found = _resolve(_known_first(known, text, resolve_address), domain, text, reply)
        unique.setdefault((found.endpoint.pair, found.conversation), found)
    named_to = _keys(resolve_address, known, domain, to_header, reply)
    named_cc = _keys(resolve_address, known, domain, cc_header, reply)
    ordered = list(unique.items())
    main = next((r for key, r in ordered if key in named_to), None)
    riding: list[_Recipient] = []
    for key, r in ordered:
        if main is not None and r is not main and not r.explicit and key in named_cc:
            # A copy joins the main mail's conversation.
            r = _Recipient(r.text, r.endpoint, main.conversation, False)
        riding.append(r)
    if main is not None:  # the main recipient is the first mail's `to`
        riding.remove(main)
        riding.insert(0, main)
    return Plan(_group(riding), len(recipients), len(recipients) - len(unique))


def _known_first(known: Mapping[str, Endpoint], text: str, resolve: Resolve) -> Resolve:
    """RCPT's resolution of this very text when there is one, else a lookup."""
    endpoint = known.get(text)
    return resolve if endpoint is None else (lambda _address: endpoint)
