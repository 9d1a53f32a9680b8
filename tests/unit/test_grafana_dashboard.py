"""deploy/grafana-dashboard.json names only metrics the gateway has, and shows each of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client.metrics import MetricWrapperBase

from core import metrics

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana-dashboard.json"


def defined() -> set[str]:
    return {
        family.name
        for value in vars(metrics).values()
        if isinstance(value, MetricWrapperBase)
        for family in value.describe()
    }


def test_the_dashboard_shows_every_metric_and_no_other() -> None:
    panels = json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]
    expressions = " ".join(t["expr"] for panel in panels for t in panel["targets"])
    named = {
        re.sub(r"_(total|bucket|count|sum)$", "", name)
        for name in re.findall(r"agentmail_\w+", expressions)
    }
    assert named == defined()
