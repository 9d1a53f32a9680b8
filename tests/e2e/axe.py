"""axe-core in the page, as `@axe-core/playwright` does it in JavaScript.

That package injects `axe.min.js` into the page and calls `axe.run()`; here the
same file (web/node_modules/axe-core, a devDependency of the UI) is added with
`page.add_script_tag` and run with `page.evaluate`. Injecting a script needs a
context with `bypass_csp=True`, so only the axe pages use one; every other page
runs under the gateway's real policy. Serious and critical violations fail the
test; moderate and minor ones are printed.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

from tests.support.browser import AXE_SCRIPT

RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
  }));
}"""
FAILING = {"serious", "critical"}


async def violations(page: Page) -> list[dict[str, Any]]:
    if not await page.evaluate("() => typeof window.axe !== 'undefined'"):
        await page.add_script_tag(path=AXE_SCRIPT)
    found: list[dict[str, Any]] = await page.evaluate(RUN)
    return found


async def serious_violations(page: Page, view: str) -> list[str]:
    """axe's serious and critical findings on the page as it is now; prints the rest."""
    failing = []
    for v in await violations(page):
        line = f"{view}: [{v['impact']}] {v['id']}: {v['help']} at {', '.join(v['targets'])}"
        if v["impact"] in FAILING:
            failing.append(line)
        else:
            print(f"axe (not failing) {line}")
    return failing
