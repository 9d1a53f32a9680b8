"""Security issue, hole 2 over SMTP: `RCPT TO` an outsider's alias is `550 5.1.1`, exactly as
an unknown alias, and a reply naming someone else's Message-ID joins nothing; an alias a
conversation held before a rename still reaches it for its participants only. Both backends.
"""

from __future__ import annotations

import smtplib

import pytest

from tests.integration.test_conversation_access import Scene, scene
from tests.support.gateway import PASSWORD, Api
from tests.support.http import HUMAN_SEND, ok
from tests.support.smtp import D, agent_with_key, message, send

ME = "/api/v1/me"


async def refusal(api: Api, login: str, secret: str, sender: str, to: str) -> tuple[int, str]:
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        await send(api, login, secret, message(sender, to, "let me in"))
    [(code, text)] = refused.value.recipients.values()
    return code, text.decode()


async def _rcpt_to_an_outsiders_alias_is_550(api: Api, s: Scene) -> None:
    _, ykey = await agent_with_key(api, "ycli", ("ws3", "/srv/ws3"))
    before = ok(await s.alice.get(f"{ME}/sessions/{s.task['session_id']}"))["mails"]
    cases = [
        ("bob", PASSWORD, f"bob@{D}", "xagent+ws1+{}@" + D),
        ("ycli", ykey, f"ycli+ws3@{D}", "alice++{}@" + D),
    ]
    for login, secret, sender, to in cases:
        found = await refusal(api, login, secret, sender, to.format(s.alias))
        unknown = await refusal(api, login, secret, sender, to.format("no-such-alias"))
        assert found[0] == unknown[0] == 550
        assert found[1].startswith("5.1.1 ")
        assert found[1].replace(s.alias, "<x>") == unknown[1].replace("no-such-alias", "<x>")
    detail = ok(await s.alice.get(f"{ME}/sessions/{s.task['session_id']}"))
    assert detail["mails"] == before and detail["session"]["participants"] == ["alice", "xagent"]

    # A participant's RCPT to the alias is accepted.
    await send(api, "alice", PASSWORD, message(f"alice@{D}", f"xagent+ws1+{s.alias}@{D}", "more"))
    detail = ok(await s.alice.get(f"{ME}/sessions/{s.task['session_id']}"))
    assert [m["subject"] for m in detail["mails"]][-1] == "more"


async def _a_reply_naming_someone_elses_message_id_joins_nothing(api: Api, s: Scene) -> None:
    message_id = s.task["message_id"]
    reply = message(
        f"bob@{D}",
        f"xagent+ws1@{D}",
        "Re: Fix login leak",
        In_Reply_To=message_id,
        References=message_id,
    )
    await send(api, "bob", PASSWORD, reply)

    [mine] = ok(await s.bob.get(f"{ME}/mail/sent"))["mails"]
    assert mine["session_id"] != s.task["session_id"]
    assert mine["parent_mail_id"] is None  # as for a Message-ID the gateway does not know
    session = ok(await s.bob.get(f"{ME}/sessions/{mine['session_id']}"))["session"]
    assert session["participants"] == ["bob", "xagent"]
    detail = ok(await s.alice.get(f"{ME}/sessions/{s.task['session_id']}"))
    assert len(detail["mails"]) == 1 and detail["session"]["participants"] == ["alice", "xagent"]

    # Alice's own reply by Message-ID does thread into her conversation.
    mine_too = message(
        f"alice@{D}", f"xagent+ws1@{D}", "Re: Fix login leak", In_Reply_To=message_id
    )
    await send(api, "alice", PASSWORD, mine_too)
    detail = ok(await s.alice.get(f"{ME}/sessions/{s.task['session_id']}"))
    assert [m["parent_mail_id"] for m in detail["mails"]] == [None, s.task["mail_id"]]


async def _a_renamed_conversation_keeps_its_old_alias_for_its_participants(
    api: Api, s: Scene
) -> None:
    """A mail client synced the task before the platform renamed the conversation: its
    Reply goes to the old alias and lands in the renamed conversation; to anyone else
    the old alias is as unknown as one that never existed; no new conversation gets it."""
    conv = s.task["session_id"]
    synced = ok(
        await s.xagent.post(
            f"/api/v1/sessions/{conv}/sync",
            json={"session_alias": "login-token-leak", "title": "Login token leak"},
        )
    )
    assert synced["session_alias"] == "login-token-leak"
    old = f"xagent+ws1+{s.alias}@{D}"

    reply = message(f"alice@{D}", old, "Re: Fix login leak", In_Reply_To=s.task["message_id"])
    await send(api, "alice", PASSWORD, reply)
    detail = ok(await s.alice.get(f"{ME}/sessions/{conv}"))
    assert detail["mails"][-1]["subject"] == "Re: Fix login leak"
    assert detail["mails"][-1]["parent_mail_id"] == s.task["mail_id"]
    assert detail["session"]["session_alias"] == "login-token-leak"
    # By REST too, to `name@path.oldalias`.
    sent = ok(
        await s.alice.post(HUMAN_SEND, json={"to": f"xagent@ws1.{s.alias}", "subject": "more"})
    )
    assert sent["session_id"] == conv

    found = await refusal(api, "bob", PASSWORD, f"bob@{D}", old)
    unknown = await refusal(api, "bob", PASSWORD, f"bob@{D}", f"xagent+ws1+never-was@{D}")
    assert found[0] == unknown[0] == 550 and found[1].startswith("5.1.1 ")
    assert found[1].replace(s.alias, "<x>") == unknown[1].replace("never-was", "<x>")

    again = ok(
        await s.bob.post(
            HUMAN_SEND, json={"to": "xagent@ws1.new", "subject": "x", "session_alias": s.alias}
        )
    )
    assert again["session_alias"] == f"{s.alias}-2" and again["session_id"] != conv
    assert len(ok(await s.alice.get(f"{ME}/sessions/{conv}"))["mails"]) == len(detail["mails"]) + 1


async def test_smtp_lets_no_outsider_into_a_conversation(api: Api) -> None:
    s = await scene(api)
    await _a_reply_naming_someone_elses_message_id_joins_nothing(api, s)
    await _rcpt_to_an_outsiders_alias_is_550(api, s)
    await _a_renamed_conversation_keeps_its_old_alias_for_its_participants(api, s)
