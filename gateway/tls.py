"""The server TLS context, built once from `AGENTMAIL_TLS_CERT` / `AGENTMAIL_TLS_KEY`.

One certificate serves every TLS listener of the gateway (SMTP STARTTLS, SMTP over
implicit TLS, and IMAP in its issue). A misconfiguration stops the start with a
sentence that says which file and why, before anything is opened or bound.
"""

from __future__ import annotations

import ssl
from pathlib import Path

from core.settings import Settings


class TlsConfigError(Exception):
    """The TLS settings cannot be used; the message is meant for the operator."""


def server_tls_context(settings: Settings) -> ssl.SSLContext | None:
    """The context for the configured certificate and key, or None when TLS is off."""
    cert, key = settings.tls_cert, settings.tls_key
    if cert is None and key is None:
        for name, port in (("SMTPS", settings.smtps_port), ("IMAPS", settings.imaps_port)):
            if port is not None:
                raise TlsConfigError(
                    f"AGENTMAIL_{name}_PORT needs a certificate: set AGENTMAIL_TLS_CERT and "
                    "AGENTMAIL_TLS_KEY"
                )
        return None
    if cert is None or key is None:
        given, missing = ("TLS_CERT", "TLS_KEY") if key is None else ("TLS_KEY", "TLS_CERT")
        raise TlsConfigError(f"AGENTMAIL_{given} is set but AGENTMAIL_{missing} is not")
    for name, path in (("AGENTMAIL_TLS_CERT", cert), ("AGENTMAIL_TLS_KEY", key)):
        _readable(name, path)
    # Purpose.CLIENT_AUTH: a server context (no client certificates asked for).
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(certfile=cert, keyfile=key)
    except ssl.SSLError as error:
        raise TlsConfigError(
            f"cannot use the TLS certificate {cert} with the key {key}: {_reason(error)}"
        ) from error
    return context


def _readable(name: str, path: Path) -> None:
    try:
        with path.open("rb") as handle:
            handle.read(1)
    except OSError as error:
        raise TlsConfigError(f"{name}={path}: {error.strerror or error}") from error


def _reason(error: ssl.SSLError) -> str:
    if error.reason == "KEY_VALUES_MISMATCH":
        return "the key does not belong to the certificate"
    if "PEM lib" in str(error):  # OpenSSL's word for "could not read the PEM data"
        return "a file is not a PEM certificate or key"
    return str(error.reason or error).replace("_", " ").lower()
