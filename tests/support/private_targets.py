"""URLs the gateway must not post to (core/push/endpoints.py): push endpoints and webhook
endpoints are refused alike when they name one, unless an admin setting allows them."""

from __future__ import annotations

REFUSED_URLS = [
    "http://hooks.example.com/x",  # not https
    "https://127.0.0.1/x",  # loopback
    "https://localhost/x",  # a name resolving to loopback
    "https://[::1]/x",
    "https://10.0.0.7/x",  # private
    "https://192.168.1.2/x",
    "https://169.254.169.254/latest",  # link-local (a cloud's metadata service)
    "https://[fe80::1]/x",
    "https://[::ffff:127.0.0.1]/x",  # loopback written as IPv6
    "https://240.0.0.1/x",  # reserved
    "https://user:pw@hooks.example.com/x",
    "ftp://hooks.example.com/x",
    "not a url",
]
