"""The client SDK: the agent API over HTTP (REST + SSE), the key bootstrap.

Stable API for the bridges (`bridges/runtime`, `bridges/mcp`, the platform adapters):
`AgentClient`, `EventStream`, `Event`, `GatewayError`, `load_key`, and the models.
It imports nothing of the server: the OpenAPI document is the contract.
"""

from bridges.client.backoff import Backoff
from bridges.client.client import AgentClient
from bridges.client.errors import GatewayError, KeyNotRegistered
from bridges.client.keys import AgentKey, key_directory, load_key
from bridges.client.models import (
    AddressedWorkspace,
    Attachment,
    Event,
    Heartbeat,
    Mail,
    MailList,
    Registered,
    SendResult,
    SessionDetail,
    Workspace,
)
from bridges.client.sse import EventStream
from bridges.client.transport import new_idempotency_key

__all__ = [
    "AddressedWorkspace",
    "AgentClient",
    "AgentKey",
    "Attachment",
    "Backoff",
    "Event",
    "EventStream",
    "GatewayError",
    "Heartbeat",
    "KeyNotRegistered",
    "Mail",
    "MailList",
    "Registered",
    "SendResult",
    "SessionDetail",
    "Workspace",
    "key_directory",
    "load_key",
    "new_idempotency_key",
]
