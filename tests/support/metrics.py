"""The gateway's own account of what it did: its `/metrics`, scraped and compared.

The metrics are process-wide (core/metrics.py): a test reads how much a sample
moved between two scrapes, never its absolute value.
"""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(client: httpx.AsyncClient) -> Samples:
    response = await client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def login_outcomes(before: Samples, after: Samples, protocol: str) -> dict[str, float]:
    """How the logins of `protocol` ended between two scrapes (`agentmail_logins_total`
    by outcome), and how many waited as slowed (`slowed`)."""
    outcomes = {
        outcome: moved(before, after, "agentmail_logins_total", protocol=protocol, outcome=outcome)
        for outcome in ("failed", "refused", "ok")
    }
    slowed = "agentmail_login_delay_seconds_count"
    outcomes["slowed"] = moved(before, after, slowed, protocol=protocol)
    return outcomes
