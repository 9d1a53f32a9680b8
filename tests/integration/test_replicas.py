"""Two gateway replicas on one PostgreSQL database: every client sees every event."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.gateway import Api, running_gateway
from tests.support.sse import open_stream


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_an_event_committed_on_one_replica_reaches_a_stream_on_another(
    database_url: str, tmp_path: Path
) -> None:
    async with (
        running_gateway(database_url, tmp_path / "a") as first,
        running_gateway(database_url, tmp_path / "b") as second,
    ):
        on_first, on_second = Api(first), Api(second)
        try:
            human = await on_first.human("jianf")
            builder = await on_second.agent("builder")
            async with open_stream(builder) as stream:
                sent = await human.post(
                    "/api/v1/me/mail/send",
                    json={"to": "builder@ModelRouter", "subject": "across", "body": "hello"},
                )
                assert sent.status_code == 200, sent.text
                event = await stream.next_of("new_mail", timeout=5)
                assert event.json["mail_id"] == sent.json()["mail_id"]
        finally:
            await on_first.close()
            await on_second.close()
