"""How the CSRF check compares origins (RFC 6454 §6.2: scheme, host, port; default ports elided)."""

from __future__ import annotations

import pytest

from api.csrf import normalized_origin


@pytest.mark.parametrize(
    ("origin", "normalized"),
    [
        ("http://127.0.0.1:8180", "http://127.0.0.1:8180"),
        ("HTTPS://Mail.Example.COM", "https://mail.example.com"),
        ("https://mail.example.com:443", "https://mail.example.com"),
        ("http://mail.example.com:80/", "http://mail.example.com"),
        ("https://mail.example.com:8443", "https://mail.example.com:8443"),
        ("http://[::1]:8180", "http://[::1]:8180"),
        ("null", None),
        ("", None),
        ("file:///etc/passwd", None),
        ("javascript:alert(1)", None),
        ("https://mail.example.com/path", None),
        ("https://user@mail.example.com", None),
        ("https://mail.example.com:99999", None),
        ("https://", None),
    ],
)
def test_normalized_origin(origin: str, normalized: str | None) -> None:
    assert normalized_origin(origin) == normalized
