"""Folders of one's own in the browser, at both sizes (docs/api.md "Folders").

A user makes a folder (a reserved name is refused first, said in the user's words),
moves a mail into it with "Move to…", finds it there and no longer in the inbox,
renames the folder and deletes it: the mail is then in Archive. A folder made over
IMAP (imaplib CREATE) appears in the navigation once the tab is back in view, as when
the user comes back from their mail client: IMAP's changes send no event on the
stream, so the list is asked for again then (and polls meanwhile).

On a phone the folders are in the "More" drawer, where every tap target is 44x44 px.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Locator, Page, expect

from tests.e2e.axe import serious_violations
from tests.e2e.desk import Desk, Size, Theme
from tests.e2e.probes import small_tap_targets
from tests.support.http import AGENT_SEND, ok
from tests.support.imap import imap_login

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def folders_nav(page: Page, size: Size) -> Locator:
    """Where the folders are: the navigation column, or on a phone the drawer, opened."""
    if size == "desktop":
        return page.get_by_role("navigation", name="Main")
    await page.get_by_role("button", name="More").click()
    drawer = page.get_by_role("dialog", name="More")
    await expect(drawer).to_be_visible()
    return drawer


async def close_drawer(page: Page) -> None:
    """Close the phone's drawer with its Close button. Not Escape: right after a dialog
    opened from the drawer closes, the key can still reach that dialog's layer."""
    drawer = page.get_by_role("dialog", name="More")
    await drawer.get_by_role("button", name="Close").click()
    await expect(drawer).to_be_hidden()


async def open_folder(page: Page, size: Size, name: str) -> None:
    """Open a folder from the navigation (on a phone the drawer closes behind it)."""
    nav = await folders_nav(page, size)
    await nav.get_by_role("link", name=name).click()
    await expect(page.get_by_role("dialog")).to_have_count(0)


async def folder_menu(page: Page, size: Size, name: str) -> Locator:
    """The folder's own menu ("…" beside it), open: on a phone by a tap, at a desk by the
    keyboard (the button, hidden until hovered, shows when Tab reaches it)."""
    nav = await folders_nav(page, size)
    trigger = nav.get_by_role("button", name=f"Folder {name}: actions")
    if size == "phone":
        await trigger.click()
    else:
        await nav.get_by_role("link", name=name.rsplit("/", 1)[-1]).focus()
        await page.keyboard.press("Tab")
        await expect(trigger).to_be_focused()
        await expect(trigger).to_have_css("opacity", "1")
        await page.keyboard.press("Enter")
    menu = page.get_by_role("menu")
    await expect(menu).to_be_visible()
    return menu


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_a_folder_is_made_filled_renamed_and_deleted(desk: Desk, size: Size) -> None:
    human = await desk.human()
    scout = await desk.agent("scout", ("app", "/srv/app"))
    sent = ok(
        await scout.post(
            AGENT_SEND,
            json={"to": f"{desk.name}@", "subject": "Invoice 42", "body": "Due on Friday."},
        )
    )
    mail_id = sent["mail_id"]
    row = f"[data-mail-id='{mail_id}']"
    page = await desk.open(size)
    await expect(page.locator(row)).to_be_visible()

    # New folder: the gateway's own name is refused in its words, then a nested one made.
    nav = await folders_nav(page, size)
    await nav.get_by_role("button", name="New folder").click()
    dialog = page.get_by_role("dialog", name="New folder")
    name = dialog.get_by_role("textbox", name="Name")
    await name.fill("Trash")
    await dialog.get_by_role("button", name="Create").click()
    await expect(dialog.get_by_role("alert")).to_have_text(
        "This is one of the gateway's own folders. Choose another name."
    )
    await expect(name).to_have_attribute("aria-invalid", "true")
    await name.fill("Clients/Acme")
    await name.press("Enter")
    await expect(dialog).to_be_hidden()
    await expect(nav.get_by_role("link", name="Acme")).to_be_visible()
    await expect(nav.get_by_text("Clients", exact=True)).to_be_visible()  # a parent, never made
    if size == "phone":
        small = await small_tap_targets(page)
        assert not small, small
        await desk.screenshot(page, "folders-drawer", size, "light")
        await close_drawer(page)

    # Move to…: into the folder, out of the inbox.
    await page.locator(row).click()
    await expect(page.locator("#mail-subject")).to_have_text("Invoice 42")
    await page.get_by_role("button", name="Move to…").click()
    menu = page.get_by_role("menu")
    await expect(menu.get_by_role("menuitem", name="Inbox (where it is now)")).to_be_disabled()
    await menu.get_by_role("menuitem", name="Clients/Acme", exact=True).click()
    await expect(page.locator("#mail-subject")).to_have_count(0)
    await expect(page.locator(row)).to_have_count(0)
    await expect(page.get_by_role("heading", level=1)).to_have_text("Inbox")

    # There it is, in the same list.
    await open_folder(page, size, "Acme")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Clients/Acme")
    await expect(page.locator(row)).to_be_visible()
    folder_path = page.url
    await desk.screenshot(page, "folder", size, "light")

    # Rename: the same folder (by id), its mail along.
    menu = await folder_menu(page, size, "Clients/Acme")
    await menu.get_by_role("menuitem", name="Rename…").click()
    dialog = page.get_by_role("dialog", name="Rename “Clients/Acme”")
    await dialog.get_by_role("textbox", name="Name").fill("Clients/Acme Corp")
    await dialog.get_by_role("button", name="Rename").click()
    await expect(dialog).to_be_hidden()
    if size == "phone":
        await close_drawer(page)  # the drawer it was renamed in
    await expect(page.get_by_role("heading", level=1)).to_have_text("Clients/Acme Corp")
    assert page.url == folder_path
    await expect(page.locator(row)).to_be_visible()

    # Delete: it says where the mail goes, and the mail is in Archive.
    menu = await folder_menu(page, size, "Clients/Acme Corp")
    await menu.get_by_role("menuitem", name="Delete…").click()
    dialog = page.get_by_role("dialog", name="Delete the folder “Clients/Acme Corp”?")
    await expect(dialog).to_contain_text("Its 1 mail goes to Archive: nothing is deleted.")
    await dialog.get_by_role("button", name="Delete folder").click()
    await expect(page).to_have_url(desk.base_url + "/archive")
    await expect(page.get_by_role("dialog")).to_have_count(0)  # on a phone, the drawer too
    await expect(page.get_by_role("heading", level=1)).to_have_text("Archive")
    await expect(page.locator(row)).to_be_visible()
    nav = await folders_nav(page, size)
    await expect(nav.get_by_role("link", name="Acme Corp")).to_have_count(0)
    mail = ok(await human.get(f"/api/v1/me/mail/{mail_id}"))
    assert (mail["status"], mail["folder_id"]) == ("archived", None)


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_a_folder_made_over_imap_appears(desk: Desk, size: Size) -> None:
    await desk.human()
    page = await desk.open(size)
    nav = await folders_nav(page, size)
    await expect(nav.get_by_role("button", name="New folder")).to_be_visible()

    async with imap_login(desk.api.gateway, desk.name) as imap:
        await imap.ok("create", "Thunderbird/Receipts")
    # The user comes back to the tab from the mail client.
    await page.evaluate(
        "() => document.dispatchEvent(new Event('visibilitychange', {bubbles: true}))"
    )
    await expect(nav.get_by_role("link", name="Receipts")).to_be_visible()
    await expect(nav.get_by_text("Thunderbird", exact=True)).to_be_visible()


# What must not widen or overflow: the page, the navigation column (and its scrolling
# part), the phone's drawer.
OVERFLOW = """() => {
  const wider = (el) => el && el.scrollWidth > el.clientWidth + 1;
  const nav = document.querySelector('nav[aria-label=Main]');
  const scroller = nav && [...nav.querySelectorAll('*')].find(
    (el) => getComputedStyle(el).overflowY === 'auto');
  const drawer = document.querySelector('[role=dialog]');
  return {
    page: wider(document.documentElement),
    nav: wider(nav), scroller: wider(scroller), drawer: wider(drawer),
    navWidth: nav ? nav.getBoundingClientRect().width : null,
    scrolls: scroller ? scroller.scrollHeight > scroller.clientHeight
      : drawer ? drawer.scrollHeight > drawer.clientHeight : false,
  };
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_long_names_and_many_folders_keep_the_layout(desk: Desk, size: Size) -> None:
    human = await desk.human()
    long = "Clients/" + "Quarterly-reports-for-the-board-" * 6 + "final"
    for name in [long, *(f"Projects/{year}" for year in range(1990, 2050))]:
        made = await human.post("/api/v1/me/folders", json={"name": name})
        assert made.status_code == 201, made.text
    page = await desk.open(size)
    nav = await folders_nav(page, size)
    leaf = long.split("/")[1]
    link = nav.get_by_role("link", name=leaf)
    await expect(link).to_be_visible()
    await expect(link.get_by_title(long)).to_have_text(leaf)  # cut, the whole name as tooltip

    layout = await page.evaluate(OVERFLOW)
    assert layout["scrolls"], layout
    assert not any(layout[k] for k in ("page", "nav", "scroller", "drawer")), layout
    if size == "desktop":
        assert layout["navWidth"] == 224, layout  # w-56: a long name does not widen it
    # The last folder is reached by scrolling the navigation, and opens.
    last = nav.get_by_role("link", name="2049")
    await last.scroll_into_view_if_needed()
    await desk.screenshot(page, "folders-many", size, "light")
    await last.click()
    await expect(page.get_by_role("heading", level=1)).to_have_text("Projects/2049")


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_folders_and_move_to_pass_axe(desk: Desk, size: Size, theme: Theme) -> None:
    """The nested folders in the navigation, a folder's mail, and Move to… open: axe with
    colour contrast (these pages bypass the CSP to inject axe; the tests above keep it)."""
    human = await desk.human()
    scout = await desk.agent("scout", ("app", "/srv/app"))
    for name in ("Clients/Acme", "Receipts"):
        made = await human.post("/api/v1/me/folders", json={"name": name})
        assert made.status_code == 201, made.text
    receipts = made.json()["folder_id"]
    sent = ok(
        await scout.post(AGENT_SEND, json={"to": f"{desk.name}@", "subject": "Bill", "body": "."})
    )
    ok(await human.post(f"/api/v1/me/mail/{sent['mail_id']}/file", json={"folder_id": receipts}))
    page = await desk.open(
        size, theme, bypass_csp=True, path=f"/folders/{receipts}/{sent['mail_id']}"
    )
    await expect(page.locator("#mail-subject")).to_have_text("Bill")
    await page.get_by_role("button", name="Move to…").click()
    await expect(page.get_by_role("menuitem", name="Receipts (where it is now)")).to_be_visible()
    failing = await serious_violations(page, f"folder, Move to… ({size}, {theme})")
    await desk.screenshot(page, "move-to", size, theme)
    if size == "phone":
        await page.keyboard.press("Escape")
        await page.get_by_role("button", name="Back").click()
        await folders_nav(page, size)
        failing += await serious_violations(page, f"folders in the drawer ({size}, {theme})")
    assert not failing, "\n".join(failing)
