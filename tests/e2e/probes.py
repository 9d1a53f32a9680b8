"""What the tests measure inside the page: focus, tap targets, animations, list rows.

Each is a small script run with `page.evaluate`; they return plain JSON, and a
failing check names the elements it found, so a report says what to fix.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

# How a report names an element: its label, its text, or its placeholder.
_NAME = """
  const nameOf = (el) => (el.getAttribute('aria-label') || el.textContent ||
    el.getAttribute('placeholder') || el.id || '').trim().slice(0, 40);"""

# The focused element, described, with its box and whether that box is on screen.
FOCUSED = (
    "() => {"
    + _NAME
    + """
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const r = el.getBoundingClientRect();
  const onScreen = r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 &&
    r.left < window.innerWidth && r.top < window.innerHeight;
  return {tag: el.tagName.toLowerCase(), name: nameOf(el), onScreen,
          box: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)],
          key: el.outerHTML.slice(0, 200)};
}"""
)

# Every control a finger may tap, on screen and not hidden, smaller than 44x44 CSS px
# (WCAG 2.5.5; links inside running text are exempt, as WCAG exempts inline targets).
# A checkbox or a visually hidden input (sr-only, 1x1) is tapped through its label.
SMALL_TAP_TARGETS = (
    "(minimum) => {"
    + _NAME
    + """
  const selector = 'button, a[href], input:not([type=hidden]), select, textarea, ' +
    '[role=button], [role=option], [role=tab], [role=link], summary';
  const small = [];
  for (const el of document.querySelectorAll(selector)) {
    if (el.closest('[inert], [aria-hidden=true]')) continue;
    const own = el.getBoundingClientRect();
    const label = el.labels && el.labels[0];
    const viaLabel = label && (el.type === 'checkbox' || el.type === 'radio' ||
      (own.width <= 1 && own.height <= 1));
    const r = viaLabel ? label.getBoundingClientRect() : own;
    if (r.width === 0 || r.height === 0) continue;
    if (r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth || r.top >= innerHeight) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden') continue;
    if (el.tagName === 'A' && el.closest('p, li, td') && style.display === 'inline') continue;
    if (r.width < minimum - 0.5 || r.height < minimum - 0.5) {
      const size = `${Math.round(r.width)}x${Math.round(r.height)}`;
      small.push(`${el.tagName.toLowerCase()} "${nameOf(el)}" ${size}`);
    }
  }
  return small;
}"""
)

# Records, frame by frame for `ms` milliseconds, the most animations running at once
# (CSS transitions and animations both appear in document.getAnimations()).
START_ANIMATION_RECORDER = """(ms) => {
  window.__motion = {most: 0, done: false, seen: []};
  const started = performance.now();
  const tick = () => {
    const running = document.getAnimations().filter((a) => a.playState === 'running');
    if (running.length > window.__motion.most) {
      window.__motion.most = running.length;
      window.__motion.seen = running.map((a) => a.constructor.name + ' ' +
        (a.transitionProperty || a.animationName || ''));
    }
    if (performance.now() - started < ms) requestAnimationFrame(tick);
    else window.__motion.done = true;
  };
  requestAnimationFrame(tick);
}"""

MAIL_ROWS = "() => document.querySelectorAll('[data-mail-id]').length"


async def focused(page: Page) -> dict[str, Any] | None:
    result: dict[str, Any] | None = await page.evaluate(FOCUSED)
    return result


async def small_tap_targets(page: Page, minimum: int = 44) -> list[str]:
    result: list[str] = await page.evaluate(SMALL_TAP_TARGETS, minimum)
    return result


async def animations_while(page: Page, action: Any, ms: int = 600) -> dict[str, Any]:
    """Run `action` (an awaitable factory) while recording animations for `ms`."""
    await page.evaluate(START_ANIMATION_RECORDER, ms)
    await action()
    await page.wait_for_function("() => window.__motion.done")
    motion: dict[str, Any] = await page.evaluate("window.__motion")
    return motion


async def mail_rows(page: Page) -> int:
    count: int = await page.evaluate(MAIL_ROWS)
    return count


async def settled(page: Page) -> None:
    """Wait until every running transition and animation has finished.

    A box measured mid-transition (the phone's reading pane slides in) sits
    where it is passing through, not where it comes to rest.
    """
    await page.evaluate(
        "() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)))"
    )


# What sticks out past the right edge: the document, if it is wider than the window,
# each element that pokes out while its parent does not (the outermost one, so a long
# word is one line), and text that runs out of its element's box (a word too long to
# wrap, in a box that fits). A box pokes out when it, cut by the ancestors that hide
# their overflow (an ellipsis), ends beyond the window or beyond the nearest ancestor
# that scrolls (a wide table in a scroll box: a person would have to scroll sideways
# to read it). Code blocks scroll sideways by design: they cut, like hidden.
OVERFLOWING = (
    "() => {"
    + _NAME
    + """
  const width = innerWidth;
  const found = [];
  const root = document.documentElement;
  if (root.scrollWidth > width) found.push(`document is ${root.scrollWidth} px wide`);
  // How far `right` (of a box inside `from`, or of `from` itself) ends beyond what shows.
  const overhang = (right, from) => {
    let limit = width;
    for (let up = from; up && up !== document.body; up = up.parentElement) {
      const overflow = getComputedStyle(up).overflowX;
      if (overflow === 'visible') continue;
      const box = up.getBoundingClientRect();
      if (overflow === 'hidden' || overflow === 'clip' || up.tagName === 'PRE') {
        right = Math.min(right, box.right);
        continue;
      }
      limit = Math.min(limit, box.left + up.clientLeft + up.clientWidth);  // it scrolls
      break;
    }
    return right - limit;
  };
  const memo = new Map();
  const beyond = (el) => {
    if (!el || el === document.body || el === root) return 0;
    if (memo.has(el)) return memo.get(el);
    const style = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const shown = style.display !== 'contents' && style.visibility !== 'hidden';
    const over = shown && r.width > 1 && r.height > 1 ? overhang(r.right, el.parentElement) : 0;
    memo.set(el, over);
    return over;
  };
  const describe = (el) => {
    const cls = (el.getAttribute('class') || '').split(/\\s+/).slice(0, 4).join('.');
    return `${el.tagName.toLowerCase()}${cls ? '.' + cls : ''} "${nameOf(el)}"`;
  };
  for (const el of document.body.querySelectorAll('*')) {
    const over = beyond(el);
    if (over <= 0.5 || beyond(el.parentElement) > 0.5) continue;
    found.push(`${describe(el)} pokes out ${Math.round(over)} px`);
  }
  const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const reported = new Set();
  for (let node = texts.nextNode(); node; node = texts.nextNode()) {
    const el = node.parentElement;
    if (!node.data.trim() || !el || reported.has(el) || beyond(el) > 0.5) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden') continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width <= 1 || r.height <= 1) continue;  // sr-only text, clipped to nothing
    const over = overhang(r.right, el);
    if (over <= 0.5) continue;
    reported.add(el);
    found.push(`text of ${describe(el)} runs out ${Math.round(over)} px`);
  }
  return found;
}"""
)


async def overflowing(page: Page) -> list[str]:
    """Everything wider than the screen, named (empty when the page fits).

    Measure after `settled(page)`: a pane sliding in overhangs by its offset.
    """
    result: list[str] = await page.evaluate(OVERFLOWING)
    return result
