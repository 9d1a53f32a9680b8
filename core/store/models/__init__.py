"""Database tables (SQLAlchemy 2 typed declarative mapping), one module per area.

The same tables serve SQLite and PostgreSQL; Alembic migrations in
`core/store/migrations/` create them. Importing this package registers every
table on `Base.metadata`.
"""

from core.store.models.accounts import Agent, Key, User
from core.store.models.allowlists import HeldOutbound, OutboundAllowlistEntry
from core.store.models.columns import (
    Base,
    SeqType,
    UTCDateTime,
    isoformat,
    new_id,
    table_of,
    utcnow,
)
from core.store.models.external import (
    ExternalAddress,
    OutsideReply,
    ReplyToken,
    VerificationCode,
)
from core.store.models.imap import ImapExpunged, ImapFolder, ImapSubscription, ImapUid
from core.store.models.mail import (
    AliasProposal,
    Attachment,
    Conversation,
    Delivery,
    DeliveryKeyword,
    Draft,
    Event,
    FormerAlias,
    IdempotencyRecord,
    Mail,
    Meta,
    Participant,
    RawMessage,
)
from core.store.models.outbound import OutboundJob
from core.store.models.push import PushJob, PushSubscription
from core.store.models.structures import MessageStructure, RenderedStructure
from core.store.models.webhooks import WebhookDelivery, WebhookEndpoint

__all__ = [
    "Agent",
    "AliasProposal",
    "Attachment",
    "Base",
    "Conversation",
    "Delivery",
    "DeliveryKeyword",
    "Draft",
    "Event",
    "ExternalAddress",
    "FormerAlias",
    "HeldOutbound",
    "IdempotencyRecord",
    "ImapExpunged",
    "ImapFolder",
    "ImapSubscription",
    "ImapUid",
    "Key",
    "Mail",
    "MessageStructure",
    "Meta",
    "OutboundAllowlistEntry",
    "OutboundJob",
    "OutsideReply",
    "Participant",
    "PushJob",
    "PushSubscription",
    "RawMessage",
    "RenderedStructure",
    "ReplyToken",
    "SeqType",
    "UTCDateTime",
    "User",
    "VerificationCode",
    "WebhookDelivery",
    "WebhookEndpoint",
    "isoformat",
    "new_id",
    "table_of",
    "utcnow",
]
