"""A heartbeat that counts unread mail the bridge does not hold starts the catch-up
(bridges/runtime/catch_up.py): mail whose event never reached the bridge, on a stream
that stays open, is run all the same — once.

The bridge (the stub platform) reaches the gateway through a proxy that drops every
`new_mail` event from its stream and passes everything else (tests/support/
event_filter.py): nothing tells the bridge the mail came but its heartbeat's
`pending_mails`. SQLite only: what is tested is the bridge's side.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.bridge import BridgeProcess
from tests.support.event_filter import event_filter
from tests.support.gateway import Api, running_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.sse import open_stream


async def test_mail_whose_event_was_lost_runs_at_the_next_heartbeat(tmp_path: Path) -> None:
    async with running_gateway(f"sqlite:///{tmp_path / 'agentmail.db'}", tmp_path / "gw") as gw:
        api = Api(gw)
        try:
            human = await api.human("jianf")
            key = await api.agent_key()
            workspace = tmp_path / "ws"
            workspace.mkdir()
            async with (
                event_filter(gw.http_port, {"new_mail"}) as proxy,
                open_stream(human) as seen,
            ):
                bridge = BridgeProcess(
                    proxy.url,
                    key,
                    tmp_path / "bridge-data",
                    workspace,
                    AGENTMAIL_BRIDGE_HEARTBEAT="0.5",
                )
                try:
                    await bridge.start()
                    steps = [
                        {"do": "run", "command": "echo ran >> ran.txt"},
                        {"do": "reply", "body": "seen"},
                    ]
                    task = {
                        "to": "builder@root",
                        "subject": "lost",
                        "body": json.dumps({"steps": steps}),
                    }
                    sent = ok(await human.post(HUMAN_SEND, json=task))
                    while True:
                        event = (await seen.next_of("new_mail", timeout=60)).json
                        if event["mail_type"] == "final_summary":
                            break
                    assert event["session_id"] == sent["session_id"]
                    assert proxy.dropped, "the bridge's stream never carried the mail's event"
                    assert proxy.streams == 1, bridge.log()  # no reconnection caught it up
                    assert (workspace / "ran.txt").read_text() == "ran\n"
                finally:
                    await bridge.stop()
        finally:
            await api.close()
