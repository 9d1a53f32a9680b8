"""One guess budget for every way in: web login, password change, SMTP AUTH, IMAP LOGIN.

Every check of a password or a key goes through `LoginGuard.check`, which counts
its failures in one throttle (core/identity/throttle.py) by client address and by
the account the login named:

* **per address**, `per_address` failures within a minute refuse that address's
  logins unchecked until the minute has room (`RateLimited`: web `429`, SMTP
  `454 4.7.0`, IMAP `NO [UNAVAILABLE]`), and its parallel checks never outrun that;
* **per account**, `per_account` failures within a minute, from anywhere, make each
  further *password* check on it wait — `first_delay`, doubled with each further
  failure, at most `max_delay` — but never refuse it: an attacker who knows a name
  can slow its owner by at most `max_delay` a login, not lock them out. A key
  (256 random bits, nothing to guess) is checked before any wait and never slowed.

The waits are counted in `agentmail_login_delay_seconds` and the outcomes in
`agentmail_logins_total` (core/metrics.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from core import metrics
from core.address import parse_email
from core.errors import AuthenticationFailed, DomainError, InvalidAddress, RateLimited
from core.identity.accounts import check_user_password
from core.identity.keys import authenticate
from core.identity.throttle import LoginThrottle
from core.principal import Principal
from core.settings import Settings
from core.store.engine import Store

Protocol = Literal["web", "smtp", "imap"]
# Which keys a protocol takes in place of a password: raises if not this one.
KeyRule = Callable[[Principal], None]


def login_name(login: str, domain: str) -> str:
    """`jianf`, `JianF` and `jianf@<domain>` all name the human `jianf`."""
    if "@" in login:
        try:
            return parse_email(login, domain).name
        except InvalidAddress:
            return ""
    return login.strip().lower()


@dataclass(frozen=True, slots=True)
class LoginGuard:
    throttle: LoginThrottle
    per_address: int
    per_account: int
    first_delay: float = 1.0
    max_delay: float = 15.0

    async def check(
        self,
        store: Store,
        name: str,
        secret: str,
        address: str,
        protocol: Protocol,
        keys: KeyRule | None = None,
    ) -> Principal:
        """The principal `secret` proves `name` to be: a key this protocol takes
        (`keys`; None: passwords only), else the user's password. Refused unchecked
        (`RateLimited`) from an address over its limit; `AuthenticationFailed` else."""
        name = name.strip().lower()[:64]
        try:
            await self.throttle.admit(address, self.per_address)
        except RateLimited:
            metrics.LOGINS.labels(protocol, "refused").inc()
            raise
        try:
            principal = await self._checked(store, name, secret, protocol, keys)
        except DomainError:
            self.throttle.failed(address)
            self.throttle.failed("account:" + name)
            metrics.LOGINS.labels(protocol, "failed").inc()
            raise
        finally:
            self.throttle.done(address)
        metrics.LOGINS.labels(protocol, "ok").inc()
        return principal

    async def _checked(
        self, store: Store, name: str, secret: str, protocol: Protocol, keys: KeyRule | None
    ) -> Principal:
        if keys is not None:
            try:
                principal = await authenticate(store, secret)
            except AuthenticationFailed:
                pass  # not a key: a password, checked below
            else:
                keys(principal)
                if principal.name != name:
                    raise AuthenticationFailed(
                        f"this key belongs to '{principal.name}', not '{name}'"
                    )
                return principal
        wait = self.throttle.delay(
            "account:" + name, self.per_account, self.first_delay, self.max_delay
        )
        if wait > 0:
            metrics.LOGIN_DELAY_SECONDS.labels(protocol).observe(wait)
            await asyncio.sleep(wait)
        return await check_user_password(store, name, secret)


def guard_from_settings(settings: Settings, throttle: LoginThrottle) -> LoginGuard:
    return LoginGuard(
        throttle,
        settings.login_failures_per_address,
        settings.login_failures_per_account,
        settings.login_delay_seconds,
        settings.login_delay_max_seconds,
    )
