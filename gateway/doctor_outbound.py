"""`agentmail doctor`'s checks of outbound mail, when it is configured
(docs/external-mail.md): the smarthost answers and takes our login, and the domain's
published records are there, read through the resolver the settings name
(AGENTMAIL_DNS_SERVERS) as receivers would read them.

- smarthost: connect, EHLO, STARTTLS or implicit TLS as set, AUTH with the configured
  user (the password is never shown), QUIT; the server's replies are the finding.
- SPF (RFC 7208): one `v=spf1` TXT record at the domain. Whether it covers the
  smarthost is a heuristic, said so: an `include:`, the smarthost's name, or one of
  its addresses in an `ip4:`/`ip6:`/`a:` term.
- DKIM (RFC 6376): the TXT record at `<selector>._domainkey.<domain>` carries the
  public half of the key in the database (core/relay/dkim_key.py).
- DMARC (RFC 7489): a `v=DMARC1` record at `_dmarc.<domain>`, its policy shown.
- MX: where replies from outside go.
"""

from __future__ import annotations

import asyncio

import aiosmtplib
import dns.exception
import dns.resolver

from core.mailauth.resolver import make_resolver, parse_servers
from core.relay.dkim_key import load_dkim_key
from core.secrets.box import KEY_FILE_NAME
from core.secrets.configured import secret_box
from core.settings import Settings
from core.settings.outbound import DIRECT
from core.store.engine import Store, database_url
from gateway.doctor import Finding

__all__ = ["check_outbound", "outbound_findings"]

PROBE_SECONDS = 20.0  # a doctor waits less than a delivery would (RFC 5321's 5 minutes)


async def _txt(resolver: dns.resolver.Resolver, name: str) -> list[str]:
    def look() -> list[str]:
        try:
            answer = resolver.resolve(name, "TXT", search=False)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        return [b"".join(r.strings).decode("utf-8", "replace") for r in answer]

    return await asyncio.to_thread(look)


async def check_smarthost(settings: Settings) -> Finding:
    host, _, port = settings.smarthost.rpartition(":")
    where = f"smarthost {settings.smarthost}"
    password = settings.smarthost_password
    client = aiosmtplib.SMTP(
        hostname=host.strip("[]"),
        port=int(port),
        local_hostname=settings.domain,
        timeout=min(settings.smarthost_timeout_seconds, PROBE_SECONDS),
        use_tls=settings.smarthost_tls == "implicit",
        start_tls=settings.smarthost_tls == "starttls",
    )
    steps = ["EHLO"] + (["STARTTLS"] if settings.smarthost_tls == "starttls" else [])
    try:
        greeting = await client.connect()
        if settings.smarthost_user:
            reply = await client.login(
                settings.smarthost_user, password.get_secret_value() if password else ""
            )
            steps.append(f"AUTH as {settings.smarthost_user}: {reply.code} {reply.message}")
        await client.quit()
    except aiosmtplib.SMTPResponseException as error:
        client.close()
        return Finding(
            "fail",
            "smarthost",
            f"{where}: {error.code} {error.message}"[:300],
            "check AGENTMAIL_SMARTHOST_USER and _PASSWORD, and AGENTMAIL_SMARTHOST_TLS",
        )
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as error:
        client.close()
        return Finding(
            "fail",
            "smarthost",
            f"{where}: {type(error).__name__}: {error}"[:300],
            "check AGENTMAIL_SMARTHOST and AGENTMAIL_SMARTHOST_TLS, and that this host may"
            " reach it",
        )
    said = " ".join(greeting.message.split())[:80]
    return Finding("ok", "smarthost", f"{where}: {greeting.code} {said}; {', '.join(steps)}")


async def _addresses(resolver: dns.resolver.Resolver, host: str) -> set[str]:
    def look() -> set[str]:
        found: set[str] = set()
        for rtype in ("A", "AAAA"):
            try:
                found |= {r.to_text() for r in resolver.resolve(host, rtype, search=False)}
            except dns.exception.DNSException:
                continue
        return found

    return await asyncio.to_thread(look)


async def check_spf(settings: Settings, resolver: dns.resolver.Resolver) -> Finding:
    domain = settings.domain
    records = [t for t in await _txt(resolver, domain) if t.lower().startswith("v=spf1")]
    if not records:
        return Finding(
            "fail",
            "SPF",
            f"no v=spf1 TXT record at {domain}",
            "publish the one your mail provider documents (docs/external-mail.md)",
        )
    if len(records) > 1:
        return Finding(
            "fail", "SPF", f"{len(records)} SPF records at {domain}", "keep one (RFC 7208 §4.5)"
        )
    (record,) = records
    if settings.smarthost == DIRECT:
        return Finding("ok", "SPF", f"{domain}: {record} (who it lists is not checked)")
    host = settings.smarthost.rpartition(":")[0].strip("[]").lower()
    terms = record.lower().split()
    named = {host} | await _addresses(resolver, host)
    covered = any(t.lstrip("+").startswith(("include:", "redirect=")) for t in terms) or any(
        _named(t) in named for t in terms
    )
    if covered:
        return Finding("ok", "SPF", f"{domain}: {record} (lists the smarthost: a heuristic)")
    return Finding(
        "warn",
        "SPF",
        f"{domain}: {record} names no include: and not {host} (a heuristic)",
        "make sure it covers your provider's servers, as the provider documents",
    )


def _named(term: str) -> str:
    """The host or address of an `ip4:`, `ip6:` or `a:` term (its prefix length cut)."""
    mechanism, colon, value = term.lstrip("+").partition(":")
    return value.split("/")[0] if colon and mechanism in ("ip4", "ip6", "a") else ""


def _tag(record: str, name: str) -> str:
    for part in record.split(";"):
        key, equals, value = part.partition("=")
        if equals and key.strip().lower() == name:
            return "".join(value.split())
    return ""


async def _stored_key_public(settings: Settings) -> tuple[str, str] | str:
    """(selector, public key) of the DKIM key in the database, or why there is none."""
    if settings.secret_key is None and not (settings.data_dir / KEY_FILE_NAME).exists():
        return "no secret key (AGENTMAIL_SECRET_KEY) to open the stored key with"
    store = Store(database_url(settings.database_url, settings.sqlite_path))
    try:
        async with asyncio.timeout(PROBE_SECONDS):
            key = await load_dkim_key(store, secret_box(settings))
    except Exception as error:  # any failure to read it is the finding
        return f"the stored key could not be read: {type(error).__name__}: {error}"[:300]
    finally:
        await store.close()
    if key is None:
        return "no DKIM key yet: `agentmail dkim generate` makes one"
    return key.selector, key.public


async def check_dkim(settings: Settings, resolver: dns.resolver.Resolver) -> Finding:
    stored = await _stored_key_public(settings)
    if isinstance(stored, str):
        return Finding("warn", "DKIM", stored, "outbound mail goes unsigned until there is one")
    selector, public = stored
    name = f"{selector}._domainkey.{settings.domain}"
    records = [t for t in await _txt(resolver, name) if _tag(t, "p")]
    if not records:
        return Finding(
            "fail", "DKIM", f"no DKIM record at {name}", "publish what `agentmail dkim show` prints"
        )
    if all(_tag(record, "p") != public for record in records):
        return Finding(
            "fail",
            "DKIM",
            f"{name} publishes another key than the one outbound mail is signed with",
            "publish what `agentmail dkim show` prints (receivers' caches hold the old one"
            " for its TTL)",
        )
    return Finding("ok", "DKIM", f"{name} publishes the signing key's public half")


async def check_dmarc(settings: Settings, resolver: dns.resolver.Resolver) -> Finding:
    name = f"_dmarc.{settings.domain}"
    records = [
        t for t in await _txt(resolver, name) if t.replace(" ", "").lower().startswith("v=dmarc1")
    ]
    if len(records) != 1:
        found = "no DMARC record" if not records else f"{len(records)} DMARC records"
        return Finding(
            "warn",
            "DMARC",
            f"{found} at {name}",
            'publish one: "v=DMARC1; p=quarantine; adkim=s; aspf=r" (docs/external-mail.md)',
        )
    policy = _tag(records[0], "p") or "(none given)"
    return Finding("ok", "DMARC", f"{name}: p={policy} ({records[0]})")


async def check_mx(settings: Settings, resolver: dns.resolver.Resolver) -> Finding:
    def look() -> list[str]:
        try:
            answer = resolver.resolve(settings.domain, "MX", search=False)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        ordered = sorted(answer, key=lambda r: r.preference)
        return [f"{r.preference} {r.exchange.to_text(omit_final_dot=True)}" for r in ordered]

    hosts = await asyncio.to_thread(look)
    if not hosts:
        return Finding(
            "warn",
            "MX",
            f"no MX record for {settings.domain}",
            "replies from outside have nowhere to go: publish the MX of the gateway's domain",
        )
    return Finding("ok", "MX", f"{settings.domain}: {', '.join(hosts)}")


async def _dns_findings(settings: Settings, resolver: dns.resolver.Resolver) -> list[Finding]:
    findings = []
    for check in (check_spf, check_dkim, check_dmarc, check_mx):
        try:
            findings.append(await check(settings, resolver))
        except dns.exception.DNSException as error:
            name = check.__name__.removeprefix("check_").upper()
            findings.append(
                Finding(
                    "fail",
                    name,
                    f"the DNS did not answer: {type(error).__name__}: {error}"[:300],
                    "check AGENTMAIL_DNS_SERVERS and that this host reaches them",
                )
            )
    return findings


async def outbound_findings(settings: Settings) -> list[Finding]:
    """Nothing when outbound mail is off; else the smarthost (unless direct) and DNS."""
    if not settings.smarthost:
        return []
    resolver = make_resolver(parse_servers(settings.dns_servers))
    smarthost = [] if settings.smarthost == DIRECT else [await check_smarthost(settings)]
    return smarthost + await _dns_findings(settings, resolver)


def check_outbound(settings: Settings) -> list[Finding]:
    return asyncio.run(outbound_findings(settings))
