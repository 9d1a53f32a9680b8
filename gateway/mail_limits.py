"""The SMTP and IMAP sessions' limits, read from the settings in one place each."""

from __future__ import annotations

from core.mailboxes.keywords import KeywordLimits
from core.settings import Settings
from imap_view.limits import ImapLimits
from smtp_in.session_limits import SessionLimits


def smtp_limits(settings: Settings) -> SessionLimits:
    """One count of connections per address for the submission and implicit-TLS ports."""
    return SessionLimits(
        max_seconds=settings.smtp_max_session_seconds,
        idle_seconds=settings.smtp_idle_timeout_seconds,
        max_commands=settings.smtp_max_commands,
        max_per_address=settings.smtp_max_connections_per_address,
    )


def imap_limits(settings: Settings) -> ImapLimits:
    return ImapLimits(
        max_append_bytes=settings.imap_append_limit,
        login_timeout=settings.imap_login_timeout_seconds,
        idle_timeout=settings.imap_idle_timeout_seconds,
        command_timeout=settings.imap_command_timeout_seconds,
        max_connections_per_address=settings.imap_max_connections_per_address,
        content_cache_bytes=settings.imap_content_cache_mib * 1024 * 1024,
        keywords=KeywordLimits(
            per_mail=settings.imap_max_keywords_per_mail,
            per_user=settings.imap_max_keywords_per_user,
            length=settings.imap_max_keyword_length,
        ),
    )
