"""The gateway's settings: one pydantic-settings class, built once at start-up.

Every setting is read from the environment (or passed as a CLI flag by
`gateway/`); README.md documents each one, and a test fails when one is missing
from the documentation. `outbound.py` holds the smarthost's part of the class, `blob_store.py` the
attachment store's, `proxied.py` the listeners that take a PROXY protocol header.
Vocabulary: it imports only its siblings at the top of core/ (durations, errors).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import SettingsConfigDict

from core.settings.blob_store import BlobSettings
from core.settings.outbound import OutboundSettings
from core.settings.proxied import ProxiedSettings


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits that keep agents from running away (settings; defaults as in the reference)."""

    new_conversations_per_hour: int = 20
    hop_limit: int = 5
    outbound: bool = False  # a smarthost is configured: mail may leave the gateway


class Settings(OutboundSettings, BlobSettings, ProxiedSettings):
    model_config = SettingsConfigDict(
        env_prefix="AGENTMAIL_", extra="ignore", populate_by_name=True
    )

    host: str = Field("127.0.0.1", description="Interface the HTTP, SMTP and IMAP servers bind.")
    http_port: int = Field(8180, description="HTTP port (REST, SSE, web UI). 0 picks a free one.")
    smtp_port: int = Field(2525, description="SMTP submission port. 0 picks a free one.")
    smtp_allow_plaintext_auth: bool = Field(
        False, description="Allow SMTP AUTH without TLS from non-loopback clients."
    )
    smtps_port: int | None = Field(
        None,
        description="SMTP over implicit TLS (RFC 8314), off when unset; 0 picks a free one.",
    )
    mx_port: int | None = Field(
        None,
        description="The MX listener (mail from the internet: replies to reply addresses,"
        " docs/external-mail.md), off when unset; 25 in production; 0 picks a free one.",
    )
    tls_cert: Path | None = Field(
        None, description="PEM certificate (chain) for STARTTLS and the implicit-TLS ports."
    )
    tls_key: Path | None = Field(None, description="PEM private key of `tls_cert`.")
    smtp_max_message_bytes: int = Field(
        26_214_400 + 65_536,
        ge=1,
        description="Largest SMTP message (DATA), in bytes (552 5.3.4 beyond).",
    )
    imap_port: int = Field(1143, description="IMAP port. 0 picks a free one.")
    imaps_port: int | None = Field(
        None,
        description="IMAP over implicit TLS (RFC 8314), off when unset; 0 picks a free one.",
    )
    imap_allow_plaintext_auth: bool = Field(
        False, description="Allow IMAP LOGIN without TLS from non-loopback clients."
    )
    domain: str = Field("agentmail.localhost", description="Mail domain of every address.")
    data_dir: Path = Field(Path("./data"), description="SQLite database and attachments.")
    attachments_dir: Path = Field(
        Path(),
        description="Attachment content; empty = `attachments/` in the data dir. Replicas on "
        "one PostgreSQL share one directory (docs/deploy.md).",
    )
    database_url: str = Field(
        "",
        validation_alias="DATABASE_URL",
        description="postgresql://… switches to PostgreSQL; empty = SQLite in the data dir.",
    )
    workers: int = Field(
        1,
        ge=1,
        le=64,
        description="Processes `agentmail serve` runs on the same ports (PostgreSQL only; "
        "SQLite runs one).",
    )
    database_connections: int = Field(
        30,
        ge=2,
        le=1000,
        description="PostgreSQL connections one gateway process opens at most (a third "
        "kept open); every replica and worker has its own.",
    )
    admin_user: str = Field(
        "admin", validation_alias="ADMIN_USER", description="Admin created on first start."
    )
    admin_password: str = Field(
        "",
        validation_alias="ADMIN_PASSWORD",
        description="Its password; empty = random, printed once on first start.",
    )
    max_body_bytes: int = Field(
        1_048_576, description="Largest accepted JSON request body, in bytes (413 beyond)."
    )
    heartbeat_seconds: float = Field(
        30.0, description="Expected agent heartbeat interval; 3 missed beats = offline."
    )
    sse_ping_seconds: float = Field(15.0, description="Keep-alive comment interval on SSE.")
    event_retention_days: float = Field(
        7.0, description="Events older than this are pruned; older resumes get `resync`."
    )
    session_cookie_days: float = Field(14.0, description="Lifetime of a web login.")
    credential_cache_seconds: float = Field(
        5.0,
        ge=0,
        le=300,
        description="How long a verified key or password is remembered in memory (0: never);"
        " dropped at once when a key or user changes (on SQLite, a change by another"
        " process such as the CLI is seen after at most this long).",
    )
    cookie_secure: bool = Field(False, description="Send the login cookie only over HTTPS.")
    secret_key: SecretStr | None = Field(
        None,
        min_length=32,
        description="Seals the secrets kept in the database (VAPID, DKIM and reply-token keys,"
        " webhook secrets); at least 32 characters, the same on every replica. Unset: a key"
        " file made in the data dir at first start (one machine only).",
    )
    push_allow_private_endpoints: bool = Field(
        False,
        description="Accept Web Push endpoints over plain http and on loopback or private"
        " hosts (a local push service in tests); never on a gateway people use.",
    )
    webhook_allow_private_endpoints: bool = Field(
        False,
        description="Accept webhook endpoints over plain http and on loopback or private"
        " hosts (a local receiver in tests); never on a gateway people use.",
    )
    webhook_max_attempts: int = Field(
        8, ge=1, le=20, description="Tries of one webhook delivery before it is given up on."
    )
    webhook_retry_seconds: float = Field(
        60.0,
        gt=0,
        description="The wait after a webhook delivery's first failed try; each next wait is"
        " three times longer, with jitter (8 tries span about a day).",
    )
    webhook_disable_after: int = Field(
        20,
        ge=1,
        description="Webhook deliveries given up on in a row after which the endpoint is"
        " disabled (its owner is told).",
    )
    default_budget: int = Field(
        20, description="Round-trip budget given to newly registered agents."
    )

    new_conversations_per_hour: int = Field(
        20, ge=1, description="Conversations an agent may open per hour (429 beyond)."
    )
    hop_limit: int = Field(
        5, ge=1, description="Mails between agents with no human in between before a loop stops."
    )
    max_attachment_bytes: int = Field(
        26_214_400, ge=1, description="Largest attachment upload, in bytes (413 beyond)."
    )
    attachment_ttl_hours: float = Field(
        24.0, gt=0, description="Uploads never sent with a mail are removed after this."
    )

    bcrypt_rounds: int = Field(
        12, ge=4, le=31, description="Cost of new password hashes (bcrypt log rounds)."
    )

    # SMTP session and message limits (docs/smtp.md).
    smtp_max_recipients: int = Field(
        100,
        ge=1,
        description="Recipients per SMTP message (452 4.5.3 beyond, RFC 5321 §4.5.3.1.8).",
    )
    smtp_max_session_seconds: float = Field(
        1800.0, gt=0, description="Longest SMTP session, however busy (421 4.4.2, then closed)."
    )
    smtp_idle_timeout_seconds: float = Field(
        300.0, gt=0, description="An SMTP client silent this long is closed (421 4.4.2 first)."
    )
    smtp_max_commands: int = Field(
        1000, ge=1, description="Commands in one SMTP session (421 4.4.2 beyond, then closed)."
    )
    smtp_max_connections_per_address: int = Field(
        50, ge=1, description="Open SMTP connections from one address (421 4.7.0 at greeting)."
    )

    # Listeners and IMAP connection limits (security issue, holes 1, 8 and 9).
    listen_backlog: int = Field(
        2048,
        ge=1,
        description="Connections the kernel queues for each listener before it accepts them.",
    )
    imap_max_append_bytes: int | None = Field(
        None,
        ge=1,
        description="Largest IMAP APPEND (APPENDLIMIT); empty = smtp_max_message_bytes.",
    )
    imap_login_timeout_seconds: float = Field(
        60.0, gt=0, description="An IMAP connection must log in within this time of connecting."
    )
    imap_idle_timeout_seconds: float = Field(
        1800.0, gt=0, description="A logged-in IMAP client silent this long is logged out."
    )
    imap_command_timeout_seconds: float = Field(
        60.0, gt=0, description="Time for an IMAP command line (and each MiB of a literal)."
    )
    imap_content_cache_mib: int = Field(
        64,
        ge=0,
        le=65_536,
        description="Memory the IMAP server keeps messages in, for every session (MiB; "
        "0: none): three quarters parsed, a quarter their rendered bytes. RSS grows by up "
        "to this much as clients read.",
    )
    imap_max_connections_per_address: int = Field(
        20, ge=1, description="IMAP connections open at once from one client address."
    )
    # IMAP flags and keywords (kept per recipient).
    imap_max_keywords_per_mail: int = Field(
        32, ge=1, le=1000, description="Keywords one recipient may set on one mail."
    )
    imap_max_keywords_per_user: int = Field(
        256, ge=1, le=10_000, description="Different keywords one human may use in all."
    )
    imap_max_keyword_length: int = Field(
        64, ge=1, le=255, description="Characters of one keyword (an IMAP atom)."
    )
    imap_expunge_retention_days: float = Field(
        30.0,
        gt=0,
        description="IMAP expunge records older than this are pruned; a QRESYNC client "
        "that last synced before gets every UID it may know that is gone.",
    )

    # The web session and HTTP hardening (security issue, holes 4-8 and 16).
    public_origin: str = Field(
        "",
        description="The gateway's origin as browsers see it (https://mail.example.com); "
        "empty = each request's scheme and Host (proxy-aware).",
    )
    trusted_proxies: str = Field(
        "",
        description="Comma-separated addresses or CIDRs of reverse proxies whose "
        "X-Forwarded-For/-Proto are believed; empty = none.",
    )
    login_failures_per_address: int = Field(
        5,
        ge=1,
        le=1000,
        description="Failed logins (web, SMTP, IMAP together) from one address in a minute"
        " before its logins are refused (web 429, SMTP 454 4.7.0, IMAP NO [UNAVAILABLE]).",
    )
    login_failures_per_account: int = Field(
        10,
        ge=1,
        le=1000,
        description="Failed logins on one account in a minute, from anywhere, before its"
        " further password logins are slowed (never refused).",
    )
    login_delay_seconds: float = Field(
        1.0,
        ge=0,
        le=60,
        description="The first wait of a slowed password login; doubled with each further"
        " failure on the account.",
    )
    login_delay_max_seconds: float = Field(
        15.0, ge=0, le=120, description="The longest wait of a slowed password login."
    )
    http_header_timeout_seconds: float = Field(
        20.0, gt=0, description="Time a client has to send a request's headers (408 beyond)."
    )
    http_connections_per_address: int = Field(
        100, ge=1, description="Open HTTP connections one client address may hold (503 beyond)."
    )

    # Web UI backend: mail client settings for the Account page, search.
    public_host: str = Field(
        "",
        max_length=253,
        description="Host name mail clients connect to; empty = the bound host "
        "(or, if that is every interface, the host the browser used).",
    )
    public_smtp_port: int | None = Field(
        None, ge=1, le=65535, description="SMTP submission port clients use; empty = the bound one."
    )
    public_smtps_port: int | None = Field(
        None,
        ge=1,
        le=65535,
        description="SMTP implicit-TLS port clients use; empty = the bound one.",
    )
    public_imap_port: int | None = Field(
        None, ge=1, le=65535, description="IMAP port clients use; empty = the bound one."
    )
    public_imaps_port: int | None = Field(
        None,
        ge=1,
        le=65535,
        description="IMAP implicit-TLS port clients use; empty = the bound one.",
    )
    search_count_cap: int = Field(
        1000,
        ge=1,
        le=100_000,
        description="Search counts and ranks at most this many matches; beyond, newest first.",
    )

    # Operations: metrics and logs.
    metrics_allow: str = Field(
        "",
        max_length=4096,
        description="Comma-separated addresses or CIDRs that may scrape /metrics without "
        "a key (loopback always may); others need an admin's key.",
    )
    log_format: Literal["text", "json"] = Field(
        "text", description="`json`: one JSON object a line (for journald or a log shipper)."
    )
    shutdown_grace_seconds: float = Field(
        20.0,
        ge=0,
        le=300,
        description="On SIGTERM, time given to SMTP messages in DATA and REST requests in "
        "flight before they are cut (keep it below systemd's TimeoutStopSec).",
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="The least severe level logged."
    )

    @field_validator("public_origin")
    @classmethod
    def _origin(cls, value: str) -> str:
        value = value.strip().rstrip("/").lower()
        scheme, _, rest = value.partition("://")
        if value and (scheme not in ("http", "https") or not rest or "/" in rest):
            raise ValueError("public_origin is scheme://host[:port], e.g. https://mail.example.com")
        return value

    @field_validator("trusted_proxies", "metrics_allow")
    @classmethod
    def _proxies(cls, value: str) -> str:
        for item in _items(value):
            ipaddress.ip_network(item, strict=False)  # a typo fails at start-up
        return value

    @model_validator(mode="after")
    def _attachments_in_data_dir(self) -> Settings:
        if self.attachments_dir == Path():
            self.attachments_dir = self.data_dir / "attachments"
        return self

    @property
    def trusted_proxy_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        return [ipaddress.ip_network(item, strict=False) for item in _items(self.trusted_proxies)]

    @property
    def metrics_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        return [ipaddress.ip_network(item, strict=False) for item in _items(self.metrics_allow)]

    @property
    def limits(self) -> Limits:
        return Limits(self.new_conversations_per_hour, self.hop_limit, bool(self.smarthost))

    @property
    def imap_append_limit(self) -> int:
        """An IMAP APPEND may be as large as an SMTP message unless set apart."""
        return self.imap_max_append_bytes or self.smtp_max_message_bytes

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "agentmail.db"

    @property
    def offline_after_seconds(self) -> float:
        return 3 * self.heartbeat_seconds


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]
