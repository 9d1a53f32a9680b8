"""The web-session settings refuse what they cannot use, at start-up rather than later."""

from __future__ import annotations

import ipaddress

import pytest
from pydantic import ValidationError

from core.settings import Settings


def test_trusted_proxies_are_addresses_or_networks() -> None:
    settings = Settings(trusted_proxies=" 10.0.0.5, 192.168.0.0/16 ,::1 ")
    assert settings.trusted_proxy_networks == [
        ipaddress.ip_network("10.0.0.5/32"),
        ipaddress.ip_network("192.168.0.0/16"),
        ipaddress.ip_network("::1/128"),
    ]
    assert Settings().trusted_proxy_networks == []  # none by default
    for wrong in ("proxy.example.com", "10.0.0.0/33", "*"):
        with pytest.raises(ValidationError):
            Settings(trusted_proxies=wrong)


def test_the_public_origin_is_an_origin() -> None:
    assert Settings(public_origin="HTTPS://Mail.Example.com/").public_origin == (
        "https://mail.example.com"
    )
    for wrong in ("mail.example.com", "ftp://mail.example.com", "https://mail.example.com/app"):
        with pytest.raises(ValidationError):
            Settings(public_origin=wrong)
