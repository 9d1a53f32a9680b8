"""Logging of `agentmail serve`: plain text for people, or one JSON object a line.

`AGENTMAIL_LOG_FORMAT=json` is for journald, Loki or any shipper that reads
structured lines: each has `time` (UTC, ISO 8601), `level`, `logger`, `message`,
the extra fields a call passed (`log.info(..., extra={...})`) and `exception`.

No secret is logged whatever the level: the gateway's own messages never carry
passwords, keys, cookies or AUTH data (tests/integration/test_no_secrets_in_logs.py
reads everything a real process writes, in both formats), and the protocol
libraries' debug logs, which echo client lines such as `AUTH PLAIN <base64>`
(aiosmtpd) or `LOGIN user password` (pymap), and SQLAlchemy's statement parameters,
are held above the levels where they do (`FLOORS`).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

# Loggers that repeat what clients send, credentials included, below a level: aiosmtpd
# and pymap echo command lines at DEBUG; SQLAlchemy logs statement parameters (key and
# cookie hashes) at INFO.
FLOORS = {
    "mail.log": logging.WARNING,
    "pymap": logging.WARNING,
    "asyncio": logging.INFO,
    "sqlalchemy": logging.WARNING,
}
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, value in vars(record).items():
            if name not in _STANDARD and not name.startswith("_"):
                entry[name] = value if isinstance(value, (str, int, float, bool)) else str(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure_logging(log_format: str, level: str) -> None:
    """One handler on the root logger, to stderr (the journal under systemd)."""
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    numeric = logging.getLevelName(level.upper())
    root.setLevel(numeric)
    for name, floor in FLOORS.items():
        logging.getLogger(name).setLevel(max(numeric, floor))
