"""`agentmail doctor`'s outbound checks against the outside world: its Postfix as the
smarthost (and aiosmtpd for a login taken or refused), and the gateway domain's
records in its DNS, each check once fine and once not."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from core.relay.dkim_key import generate_dkim_key, save_dkim_key
from core.secrets.configured import secret_box
from core.settings import Settings
from core.store.engine import Store
from gateway.doctor import Finding
from gateway.doctor_outbound import outbound_findings
from tests.support import databases
from tests.support.outside import OutsideWorld
from tests.support.smarthost import smarthost

pytestmark = pytest.mark.outside
SECRET = "the doctor tests' secret key, 32+ characters"
PASSWORD = "the smarthost password"


async def _settings(world: OutsideWorld, tmp_path: Path, **more: object) -> Settings:
    url = await databases.create_sqlite_database(tmp_path / "agentmail.db")
    chosen: dict[str, object] = {
        "domain": world.gateway_domain,
        "dns_servers": world.address("dns"),
        "smarthost": f"{world.address('mx')}:587",
        "smarthost_tls": "none",
        "database_url": url,
        "secret_key": SECRET,
        "data_dir": tmp_path,
    }
    return Settings(**(chosen | more))  # type: ignore[arg-type]


def _by_check(findings: list[Finding]) -> dict[str, Finding]:
    return {finding.check: finding for finding in findings}


async def test_every_check_fine_with_the_records_published(
    outside_world: OutsideWorld, tmp_path: Path
) -> None:
    settings = await _settings(outside_world, tmp_path)
    store = Store(settings.database_url)
    key = generate_dkim_key("agentmail", "ed25519")
    try:
        await save_dkim_key(store, secret_box(settings), key)
    finally:
        await store.close()
    dns, domain = outside_world.dns, outside_world.gateway_domain
    dns.set_txt(domain, f"v=spf1 ip4:{outside_world.address('mx')} -all")
    dns.set_txt(key.record_name(domain), key.record())
    dns.set_txt(f"_dmarc.{domain}", "v=DMARC1; p=quarantine; adkim=s")
    found = _by_check(await outbound_findings(settings))
    assert {f.status for f in found.values()} == {"ok"}, found
    assert "220" in found["smarthost"].found and "EHLO" in found["smarthost"].found
    assert "heuristic" in found["SPF"].found
    assert "p=quarantine" in found["DMARC"].found
    assert f"mx.{domain}" in found["MX"].found

    other = generate_dkim_key("agentmail", "ed25519")
    dns.set_txt(key.record_name(domain), other.record())
    dns.set_txt(domain, "v=spf1 ip4:192.0.2.1 -all")
    dns.remove(f"_dmarc.{domain}")
    dns.remove(domain, "MX")
    found = _by_check(await outbound_findings(settings))
    assert found["DKIM"].status == "fail" and "another key" in found["DKIM"].found
    assert found["SPF"].status == "warn" and "heuristic" in found["SPF"].found
    assert found["DMARC"].status == "warn" and found["MX"].status == "warn"


async def test_missing_records_and_no_key(outside_world: OutsideWorld, tmp_path: Path) -> None:
    settings = await _settings(outside_world, tmp_path)
    found = _by_check(await outbound_findings(settings))
    assert found["SPF"].status == "fail" and "no v=spf1" in found["SPF"].found
    assert found["DKIM"].status == "warn" and "dkim generate" in found["DKIM"].found
    store = Store(settings.database_url)
    try:
        await save_dkim_key(store, secret_box(settings), generate_dkim_key("s1", "ed25519"))
    finally:
        await store.close()
    found = _by_check(await outbound_findings(settings))
    assert found["DKIM"].status == "fail" and "no DKIM record" in found["DKIM"].found


async def test_a_smarthost_that_cannot_be_reached(
    outside_world: OutsideWorld, tmp_path: Path
) -> None:
    refusing = f"{outside_world.address('dns')}:587"  # nothing listens there
    found = _by_check(
        await outbound_findings(await _settings(outside_world, tmp_path, smarthost=refusing))
    )
    assert found["smarthost"].status == "fail" and refusing in found["smarthost"].found


async def test_the_smarthost_login_taken_and_refused(
    outside_world: OutsideWorld, tmp_path: Path
) -> None:
    async with smarthost(login=("gateway", PASSWORD)) as host:
        base = {"smarthost": host.address, "smarthost_user": "gateway"}
        good = await _settings(outside_world, tmp_path, **base, smarthost_password=PASSWORD)
        found = _by_check(await outbound_findings(good))["smarthost"]
        assert found.status == "ok" and "AUTH as gateway: 235" in found.found
        bad = good.model_copy(update={"smarthost_password": SecretStr("wrong")})
        found = _by_check(await outbound_findings(bad))["smarthost"]
        assert found.status == "fail" and found.found.split(": ", 1)[1].startswith("535")
        assert PASSWORD not in found.found + found.todo and "wrong" not in found.found
    (tmp_path / "direct").mkdir()
    direct = await _settings(outside_world, tmp_path / "direct", smarthost="direct")
    assert "smarthost" not in _by_check(await outbound_findings(direct))
