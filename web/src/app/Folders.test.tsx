/**
 * Folders of my own in the whole app, against the fake gateway: the navigation lists
 * them below Trash, one opens with its mail in the same list as the inbox (unread
 * ones marked, and read once opened), "Move to…" takes a mail there and out of the
 * inbox, a folder made elsewhere appears when the tab is back in view, and on a phone
 * they are in the drawer.
 */
import { QueryClient } from "@tanstack/react-query";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { initI18n } from "@/lib/i18n";
import { navigate } from "@/lib/router";
import { fileInFake, seedFolders } from "@/test/fakeFolders";
import { gateway, installFakeGateway, questionMail } from "@/test/fakeGateway";
import { App } from "./App";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

initI18n("en");

beforeEach(() => {
  installFakeGateway();
  act(() => navigate("/inbox"));
});
afterEach(() => vi.unstubAllGlobals());

const renderApp = () => render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} />);
const mailList = () => screen.getByRole("region", { name: "Mail" });

describe("folders of my own in the app", () => {
  it("lists them after Trash; one opens with its mail, unread marked, and reading one counts down", async () => {
    const [projects] = seedFolders("Projects");
    fileInFake(questionMail, projects?.folder_id ?? "", { unread: true });
    renderApp();
    const nav = await screen.findByRole("navigation", { name: "Main" });
    const link = await within(nav).findByRole("link", { name: /^Projects\W*1 unread$/ });
    const names = within(nav).getAllByRole("link").map((a) => a.textContent);
    expect(names.indexOf(link.textContent)).toBe(names.findIndex((n) => n?.includes("Trash")) + 1);
    await waitFor(() => expect(within(mailList()).queryByRole("button", { name: /Which branch/ })).toBeNull());

    await userEvent.click(link);
    expect(window.location.pathname).toBe(`/folders/${projects?.folder_id}`);
    expect(await screen.findByRole("heading", { level: 1, name: "Projects" })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe("(1) Projects · AgentMail"));
    const row = await within(mailList()).findByRole("button", { name: /Which branch/ });
    await waitFor(() => expect(within(row).getByText("Unread")).toBeInTheDocument());
    expect(gateway.calls).toContain(`GET /api/v1/me/mail/inbox/rows?folder_id=${projects?.folder_id}&status=all&limit=50&offset=0`);

    await userEvent.click(row);
    expect(window.location.pathname).toBe(`/folders/${projects?.folder_id}/m3`);
    await waitFor(() => expect(gateway.calls).toContain("POST /api/v1/me/mail/m3/read"));
    await waitFor(() => expect(within(nav).getByRole("link", { name: /^Projects/ })).toHaveAccessibleName("Projects"));
    await waitFor(() => expect(within(row).queryByText("Unread")).toBeNull());
  });

  it("moves the open mail into a folder: it leaves the inbox, and is there", async () => {
    seedFolders("Receipts");
    act(() => navigate("/inbox/m1"));
    renderApp();
    await screen.findByRole("heading", { level: 2, name: "The leak is fixed" });
    await userEvent.click(screen.getByRole("button", { name: "Move to…" }));
    await userEvent.click(await screen.findByRole("menuitem", { name: "Receipts" }));
    await waitFor(() => expect(window.location.pathname).toBe("/inbox"));
    await waitFor(() => expect(within(mailList()).queryByRole("button", { name: /The leak is fixed/ })).toBeNull());

    await userEvent.click(screen.getByRole("link", { name: /^Receipts/ }));
    const list = await screen.findByRole("region", { name: "Mail" });
    // Opened there, the mail says where it is.
    await userEvent.click(await within(list).findByRole("button", { name: /The leak is fixed/ }));
    await userEvent.click(await screen.findByRole("button", { name: "Move to…" }));
    expect(await screen.findByRole("menuitem", { name: "Receipts (where it is now)" })).toHaveAttribute("aria-disabled", "true");
  });

  it("shows a folder made elsewhere (an IMAP client) once the tab is back in view", async () => {
    renderApp();
    const nav = await screen.findByRole("navigation", { name: "Main" });
    await waitFor(() => expect(gateway.calls).toContain("GET /api/v1/me/folders"));
    seedFolders("Made in Thunderbird");
    expect(within(nav).queryByRole("link", { name: /Thunderbird/ })).toBeNull();
    act(() => {
      window.dispatchEvent(new Event("visibilitychange"));
    });
    expect(await within(nav).findByRole("link", { name: /^Made in Thunderbird/ })).toBeInTheDocument();
  });

  it("says so when a folder is gone (deleted elsewhere)", async () => {
    act(() => navigate("/folders/nope"));
    renderApp();
    expect(await screen.findByRole("alert")).toHaveTextContent("This folder is gone: it was deleted, here or elsewhere.");
  });

  describe("on a phone", () => {
    beforeEach(() => {
      vi.stubGlobal("matchMedia", (query: string) => ({
        matches: query === "(max-width: 767px)",
        media: query,
        addEventListener: () => {},
        removeEventListener: () => {},
      }));
    });

    it("has them in the drawer, after Trash; opening one closes the drawer", async () => {
      seedFolders("Projects/2026");
      renderApp();
      await userEvent.click(await screen.findByRole("button", { name: "More" }));
      const drawer = await screen.findByRole("dialog", { name: "More" });
      const link = await within(drawer).findByRole("link", { name: /^2026/ });
      expect(within(drawer).getByText("Projects")).toBeInTheDocument();
      expect(within(drawer).getByRole("button", { name: "New folder" })).toBeInTheDocument();
      await userEvent.click(link);
      await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
      expect(window.location.pathname).toBe("/folders/f1");
      expect(await screen.findByRole("heading", { level: 1, name: "Projects/2026" })).toBeInTheDocument();
    });
  });
});
