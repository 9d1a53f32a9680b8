"""A desk full of long data, for the layout tests: what a narrow screen must survive.

Names as long as names may be, a subject and an alias of one long word, a
workspace path of one long word, long key labels and folder names, a wide table,
a long line of code and a URL nobody would break. Each is one unbroken word on
purpose: text with spaces wraps by itself, a word has to be cut or wrapped by the
layout.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.e2e.desk import Desk
from tests.support.http import AGENT_SEND, HUMAN_MAIL, HUMAN_SEND, ok

WORD = "Supercalifragilisticexpialidocious" * 6  # 204 letters, no break
ALIAS = ("alias-" + "verylongconversationname" * 3)[:64]
WORKSPACE = "Workspace" + "Unbroken" * 16
PATH = "/home/" + "averyveryverylongdirectoryname" * 8
URL = "https://example.com/" + "path-segment-" * 20 + "end"
BODY = f"""{WORD}

See {URL} for the details.

| column{WORD[:40]} | another{WORD[:40]} | third{WORD[:40]} |
|---|---|---|
| {WORD[:60]} | {WORD[:60]} | {WORD[:60]} |

```
print("{WORD}")
```
"""


@dataclass(frozen=True)
class LongDesk:
    """The ids the walk opens."""

    task: str
    reply: str
    request: str
    forward: str
    session: str
    folder: str
    agent: str


def long_name(stem: str, unique: str, length: int = 64) -> str:
    """A name of `length` characters that ends in the test's unique part."""
    return (stem * 64)[: length - len(unique)] + unique


async def seed_long_data(desk: Desk) -> LongDesk:
    """The desk's (admin) human, two agents and their mail, a folder and keys, all long."""
    desk.persona(long_name("personwithalongname", desk.unique), agent_suffix=desk.unique)
    human = await desk.human(is_admin=True)
    agent = long_name("agentwithaverylongname", "", 64 - len(desk.unique))
    coder = await desk.agent(agent, (WORKSPACE, PATH))
    address = f"{desk.agent_name(agent)}@{WORKSPACE}"
    task = ok(
        await human.post(
            HUMAN_SEND,
            json={"to": f"{address}.new", "subject": WORD, "body": BODY, "session_alias": ALIAS},
        )
    )
    reply = ok(
        await coder.post(
            AGENT_SEND,
            json={
                "to": f"{desk.name}@",
                "subject": f"Re: {WORD}",
                "body": BODY,
                "reply_to": task["mail_id"],
            },
        )
    )
    request = ok(
        await coder.post(
            "/api/v1/permission/request",
            json={
                "to": f"{desk.name}@",
                "question": f"May I {WORD}?",
                "context": BODY,
                "action": f"rm -rf {PATH}/{WORD}",
                "options": ["approve", "reject", WORD[:80]],
                "session_id": task["session_id"],
            },
        )
    )
    ok(
        await coder.post(
            AGENT_SEND,
            json={
                "to": f"{desk.name}@",
                "subject": WORD,
                "body": f"Which {WORD}?",
                "mail_type": "question",
                "reply_to": reply["mail_id"],
            },
        )
    )
    forward = ok(
        await human.post(f"{HUMAN_MAIL}/{reply['mail_id']}/forward", json={"to": f"{desk.name}@"})
    )
    folder = await human.post("/api/v1/me/folders", json={"name": f"Projects/{WORD}"})
    assert folder.status_code == 201, folder.text
    folder_id = folder.json()["folder_id"]
    ok(await human.post(f"{HUMAN_MAIL}/{forward['mail_id']}/file", json={"folder_id": folder_id}))
    draft = {"to": address, "subject": WORD, "body": BODY}
    made = await human.post("/api/v1/me/drafts", json=draft)
    assert made.status_code == 201, made.text
    await desk.api.user_key(human, label=WORD)
    await desk.api.agent_key(label=WORD)
    return LongDesk(
        task=task["mail_id"],
        reply=reply["mail_id"],
        request=request["mail_id"],
        forward=forward["mail_id"],
        session=task["session_id"],
        folder=folder_id,
        agent=desk.agent_name(agent),
    )
