/**
 * "Move to…" in the reading pane against the fake gateway: the places and the folders
 * of my own (where the mail is now marked, and not a choice), by mouse and keyboard,
 * each move made with the API's call for it, and a refusal shown.
 */
import { act, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Mail } from "@/api";
import { seedFolders } from "@/test/fakeFolders";
import { base, gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { MailActions } from "./MailActions";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

beforeEach(() => installFakeGateway());
afterEach(() => vi.unstubAllGlobals());

function renderActions(mail: Mail = base) {
  const onMoved = vi.fn();
  const none = () => {};
  renderUi(
    <MailActions mail={mail} onReply={none} onArchive={none} onDelete={none} onRestore={none} onMarkUnread={none} onMoved={onMoved} />,
  );
  return onMoved;
}

async function openMenu() {
  // Until the menu's code arrives a disabled stand-in holds its place (LazyMenus.tsx).
  await waitFor(() => expect(screen.getByRole("button", { name: "Move to…" })).toBeEnabled());
  await userEvent.click(screen.getByRole("button", { name: "Move to…" }));
  return screen.findByRole("menu", { name: "Move to…" });
}

/** The menu as it reads: each row's name, `[x]` where it cannot be chosen, labels as `# …`. */
const entries = (menu: HTMLElement) =>
  [...menu.children].flatMap((el) => {
    const role = el.getAttribute("role");
    if (role === "separator") return ["---"];
    if (role === "menuitem") return [el.getAttribute("aria-disabled") === "true" ? `[${el.textContent}]` : (el.textContent ?? "")];
    return [`# ${el.textContent}`];
  });

describe("Move to…", () => {
  it("lists the places and my folders as a tree, marking where the mail is", async () => {
    seedFolders("Projects/2026", "Projects/2025", "Receipts");
    renderActions();
    const menu = await openMenu();
    await waitFor(() => expect(within(menu).getAllByRole("menuitem")).toHaveLength(6));
    expect(entries(menu)).toEqual([
      "[Inbox]", "Archive", "Trash", "---", "# Folders",
      "# Projects", "2025", "2026", "Receipts",
    ]);
    // Each folder is named by its whole name; the parent nobody made is no choice.
    expect(within(menu).getByRole("menuitem", { name: "Projects/2026" })).toHaveAttribute("title", "Projects/2026");
    expect(within(menu).queryByRole("menuitem", { name: "Projects" })).toBeNull();
    expect(within(menu).getByRole("menuitem", { name: /^Inbox/ })).toHaveAccessibleName("Inbox (where it is now)");
    expect(within(menu).getByRole("menuitem", { name: "Projects/2025" })).toHaveTextContent(/^2025$/);
  });

  it("files the mail in a folder with POST /file, then says it moved", async () => {
    const [receipts] = seedFolders("Receipts");
    const onMoved = renderActions();
    const menu = await openMenu();
    await userEvent.click(await within(menu).findByRole("menuitem", { name: "Receipts" }));
    await waitFor(() => expect(onMoved).toHaveBeenCalledOnce());
    expect(gateway.bodies["POST /api/v1/me/mail/m1/file"]).toEqual({ folder_id: receipts?.folder_id });
  });

  it("goes by keyboard: arrows pass the current place, Enter picks", async () => {
    const onMoved = renderActions();
    act(() => screen.getByRole("button", { name: "Move to…" }).focus());
    await userEvent.keyboard("{Enter}");
    const menu = await screen.findByRole("menu", { name: "Move to…" });
    // The inbox, where the mail is, is passed over: the first choice is Archive.
    await waitFor(() => expect(within(menu).getByRole("menuitem", { name: "Archive" })).toHaveFocus());
    await userEvent.keyboard("{ArrowDown}");
    // Radix moves the focus a tick after the key (roving focus), as a browser shows it.
    await waitFor(() => expect(within(menu).getByRole("menuitem", { name: "Trash" })).toHaveFocus());
    await userEvent.keyboard("{Enter}");
    await waitFor(() => expect(onMoved).toHaveBeenCalledOnce());
    expect(gateway.calls).toContain("POST /api/v1/me/mail/m1/delete");
  });

  it("closes on Escape, focus back on the button, nothing moved", async () => {
    const onMoved = renderActions();
    const button = screen.getByRole("button", { name: "Move to…" });
    await userEvent.click(button);
    await screen.findByRole("menu");
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("menu")).toBeNull());
    expect(button).toHaveFocus();
    expect(onMoved).not.toHaveBeenCalled();
  });

  it("brings a mail in Trash to the inbox: restore, then out of the archive it was in", async () => {
    const onMoved = renderActions({ ...base, status: "deleted" });
    const menu = await openMenu();
    expect(within(menu).getByRole("menuitem", { name: /^Trash/ })).toHaveAttribute("aria-disabled", "true");
    await userEvent.click(within(menu).getByRole("menuitem", { name: "Inbox" }));
    await waitFor(() => expect(onMoved).toHaveBeenCalledOnce());
    const moves = gateway.calls.filter((call) => call.startsWith("POST"));
    expect(moves).toEqual(["POST /api/v1/me/mail/m1/restore", "POST /api/v1/me/mail/m1/unarchive"]);
  });

  it("takes a filed mail to Archive, and marks its folder as where it is", async () => {
    const [projects] = seedFolders("Projects");
    const onMoved = renderActions({ ...base, status: "archived", folder_id: projects?.folder_id ?? null });
    const menu = await openMenu();
    expect(await within(menu).findByRole("menuitem", { name: "Projects (where it is now)" })).toHaveAttribute("aria-disabled", "true");
    expect(within(menu).getByRole("menuitem", { name: "Archive" })).not.toHaveAttribute("aria-disabled");
    await userEvent.click(within(menu).getByRole("menuitem", { name: "Archive" }));
    await waitFor(() => expect(onMoved).toHaveBeenCalledOnce());
    expect(gateway.calls).toContain("POST /api/v1/me/mail/m1/archive");
  });

  it("shows the gateway's refusal when the folder went meanwhile, and stays", async () => {
    seedFolders("Receipts");
    const onMoved = renderActions();
    const menu = await openMenu();
    const receipts = await within(menu).findByRole("menuitem", { name: "Receipts" });
    await act(() => fetch(new Request("http://localhost/api/v1/me/folders/f1", { method: "DELETE" }))); // another tab deleted it
    await userEvent.click(receipts);
    expect(await screen.findByRole("alert")).toHaveTextContent("The folder or the mail is gone, so nothing was moved.");
    expect(onMoved).not.toHaveBeenCalled();
  });

  it("is not offered for mail I only sent", () => {
    renderActions({ ...base, status: null });
    expect(screen.queryByRole("button", { name: "Move to…" })).toBeNull();
  });

  it("speaks Chinese too", async () => {
    seedFolders("收据");
    const none = () => {};
    renderUi(
      <MailActions mail={base} onReply={none} onArchive={none} onDelete={none} onRestore={none} onMarkUnread={none} onMoved={none} />,
      { language: "zh" },
    );
    await userEvent.click(screen.getByRole("button", { name: "移动到…" }));
    const menu = await screen.findByRole("menu", { name: "移动到…" });
    expect(await within(menu).findByRole("menuitem", { name: "收据" })).toBeInTheDocument();
    expect(within(menu).getByRole("menuitem", { name: /^收件箱/ })).toHaveAccessibleName("收件箱（当前位置）");
  });
});
