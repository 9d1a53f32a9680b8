"""What the tools need from the gateway: the agent API, as a typing.Protocol.

The tools depend on this interface, not on a transport, so a platform adapter
can hand them whichever client it holds. Every method returns the gateway's JSON
answer as it is (docs/api.md has the shapes) and raises `GatewayRefusal` with
the gateway's `{error: {code, message}}` when the answer is not a success, or
`GatewayUnreachable` when there is no answer at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

Json = dict[str, Any]


class GatewayRefusal(Exception):
    """The gateway said no: its HTTP status and its stable error code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{message} ({code})")
        self.status = status
        self.code = code
        self.message = message


class GatewayUnreachable(Exception):
    """No answer from the gateway (refused connection, timeout, a cut stream)."""


class GatewayApi(Protocol):
    async def register(self, name: str, workspaces: list[Json], platform: str) -> Json: ...

    async def heartbeat(self) -> Json: ...

    async def send_mail(self, body: Json) -> Json: ...

    async def inbox(
        self, *, status: str, limit: int, mark_read: bool, include_body: bool
    ) -> Json: ...

    async def get_mail(self, mail_id: str) -> Json: ...

    async def mark_read(self, mail_id: str) -> Json: ...

    async def mail_tree(self, mail_id: str, *, limit: int, include_body: bool) -> Json: ...

    async def forward_mail(self, mail_id: str, body: Json) -> Json: ...

    async def request_permission(self, body: Json) -> Json: ...

    async def upload_attachment(self, path: Path, filename: str) -> Json: ...

    async def download_attachment(self, attachment_id: str, target: Path, max_bytes: int) -> int:
        """Write the attachment's bytes to `target`; return how many were written."""
        ...

    async def suggest_addresses(self, query: str, limit: int) -> Json: ...

    async def contacts(self, *, limit: int, offset: int) -> Json: ...

    async def session_participants(self, session_id: str) -> Json: ...
