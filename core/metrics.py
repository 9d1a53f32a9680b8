"""The gateway's Prometheus metrics: their names, help and labels, defined once.

Every adapter counts what crosses its edge (api: REST sends, refusals, SSE;
smtp_in: SMTP; imap_view: IMAP) and the store counts its own retries, so one
metric such as `agentmail_mails_accepted_total{entrance=...}` has one definition
for all of them: here, at the bottom layer every adapter may import. Nothing
here has logic; updating a metric is a lock-protected add in memory, never I/O.

The metrics are process-wide (prometheus_client's default registry), as one
gateway runs per process; tests that run several gateways in one process read
differences, never absolute values. `/metrics` is served by api/metrics.py.
The workers of `serve --workers N` write them to files in one directory
(prometheus_client's multiprocess mode, `PROMETHEUS_MULTIPROC_DIR`, set by
gateway/workers.py), so any worker's `/metrics` gives the group's: counters and
histograms are summed, and each gauge says how in `multiprocess_mode`.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# Sub-millisecond SQLite commits up to a slow PostgreSQL under load.
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

MAILS_ACCEPTED = Counter(
    "agentmail_mails_accepted",
    "Mails committed, by the entrance they came in by (rest, smtp).",
    ["entrance"],
)
REFUSALS = Counter(
    "agentmail_refusals",
    "Requests refused, by entrance and reason (REST error code, SMTP enhanced status).",
    ["entrance", "reason"],
)
CONNECTIONS_OPEN = Gauge(
    "agentmail_connections_open",
    "Client connections open now, by protocol (smtp, imap, sse).",
    ["protocol"],
    multiprocess_mode="livesum",
)
CONNECTIONS = Counter(
    "agentmail_connections",
    "Client connections accepted, by protocol (smtp, imap, sse).",
    ["protocol"],
)
SEND_COMMIT_SECONDS = Histogram(
    "agentmail_send_commit_seconds",
    "From a send's arrival (REST request, SMTP end of DATA) to its commit.",
    ["entrance"],
    buckets=_LATENCY_BUCKETS,
)
COMMIT_PUSH_SECONDS = Histogram(
    "agentmail_commit_push_seconds",
    "From an event's commit to its push to a live client (SSE).",
    ["channel"],
    buckets=_LATENCY_BUCKETS,
)
DATABASE_ERRORS = Counter(
    "agentmail_database_errors",
    "Write transactions that failed with a database error (after any retries).",
)
DATABASE_RETRIES = Counter(
    "agentmail_database_retries",
    "Write transactions run again after a deadlock or serialization failure.",
)
OPEN_PERMISSION_REQUESTS = Gauge(
    "agentmail_open_permission_requests",
    "Permission requests waiting for a decision (read from the database at each scrape).",
    multiprocess_mode="mostrecent",
)
IMAP_MESSAGE_PARSES = Counter(
    "agentmail_imap_message_parses",
    "MIME parses IMAP made of a message at read time (for its content, not a listing; a message "
    "over the MIME bounds is served without one, docs/imap.md).",
)
IMAP_OPAQUE_READS = Counter(
    "agentmail_imap_opaque_reads",
    "Messages over the MIME bounds IMAP served as one part, without parsing them.",
)
IMAP_KEPT_READS = Counter(
    "agentmail_imap_kept_reads",
    "Kept message structures IMAP read from the store for a listing (not parsing the message).",
)
IMAP_KEPT_MADE = Counter(
    "agentmail_imap_kept_made",
    "Message structures IMAP made at read time, for mails with none kept for their "
    "content yet (not backfilled, or a renamed or decided rendering).",
)
IMAP_RESPONSE_PAUSES = Counter(
    "agentmail_imap_response_pauses",
    "Pauses between the chunks of long IMAP responses, where the event loop ran its other "
    "tasks (a FETCH of many messages pauses every 64 lines).",
)
KEPT_FILLED = Counter(
    "agentmail_kept_structures_filled",
    "Message structures the background filler kept, by kind (original: by the bytes' "
    "sha256; rendered: by mail and content key) and source (backfill; read: made by "
    "IMAP at read time and written back).",
    ["kind", "source"],
)
KEPT_PENDING = Gauge(
    "agentmail_kept_structures_pending",
    "Stored messages the backfill has still to fill, by kind, as counted when it started "
    "and as it goes; 0 once done.",
    ["kind"],
    multiprocess_mode="livesum",
)
LOOP_STALLS = Counter(
    "agentmail_loop_stalls",
    "Times the event loop held on to one callback longer than 250 ms (gateway/loop_watchdog.py).",
)
LOOP_STALL_SECONDS = Histogram(
    "agentmail_loop_stall_seconds",
    "How long each stall of the event loop lasted, once it was over.",
    buckets=(0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
LOGINS = Counter(
    "agentmail_logins",
    "Password and key logins (web, smtp, imap), by outcome: ok, failed, or refused unchecked"
    " because their client address failed too often (core/identity/login_guard.py).",
    ["protocol", "outcome"],
)
LOGIN_DELAY_SECONDS = Histogram(
    "agentmail_login_delay_seconds",
    "The wait of a password login whose account failed too often lately (slowed, not refused).",
    ["protocol"],
    buckets=(0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0),
)
SESSIONS_ENDED = Counter(
    "agentmail_sessions_ended",
    "Open sessions (smtp, imap, sse) ended because the key or password they logged in with"
    " was revoked or changed.",
    ["protocol"],
)
PASSWORD_CHECKS = Counter(
    "agentmail_password_checks",
    "Passwords checked against a bcrypt hash (a login remembered for a few seconds, or one"
    " waiting for the same check in flight, costs none).",
)
