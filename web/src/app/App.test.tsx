/**
 * A smoke test of the whole app against a fake gateway (fetch answered from
 * fixtures): it signs in, lists, opens a mail, shows a permission card.
 */
import { QueryClient } from "@tanstack/react-query";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { initI18n } from "@/lib/i18n";
import { closeCompose } from "@/features/compose/hooks/composeStore";
import { navigate } from "@/lib/router";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { App } from "./App";

// No pause between keystrokes (the tests type a lot); no pointer-events check, which races
// Radix's dialog setting `pointer-events` on its content a tick after it opens.
const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

initI18n("en");

// jsdom lays nothing out, so a real virtualiser would measure 0 px and show no rows.

beforeEach(() => {
  installFakeGateway();
  window.history.replaceState(null, "", "/inbox");
});
afterEach(() => {
  act(() => closeCompose());
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const renderApp = () => render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} />);

describe("the app", () => {
  it("signs in when nobody is, without a refused request on the way", async () => {
    gateway.signedIn = false;
    renderApp();
    await userEvent.type(await screen.findByLabelText("User name"), "jianf");
    // Who is signed in is asked where the answer is never a 401 (a console error in a browser).
    expect(gateway.calls).toEqual(["GET /api/v1/auth/session"]);
    await userEvent.type(screen.getByLabelText("Password"), "password123");
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("navigation", { name: "Main" })).toBeInTheDocument();
    expect(gateway.calls).toContain("POST /api/v1/auth/login");
  });

  it("lists the inbox with the unread count, opens a mail with its attachment and conversation", async () => {
    renderApp();
    const nav = await screen.findByRole("navigation", { name: "Main" });
    await waitFor(() => expect(within(nav).getByRole("link", { name: /Inbox/ })).toHaveTextContent("1"));
    await waitFor(() => expect(document.title).toBe("(1) Inbox · AgentMail"));
    await userEvent.click(await screen.findByRole("button", { name: /The leak is fixed/ }));
    expect(window.location.pathname).toBe("/inbox/m1");
    expect(await screen.findByRole("heading", { name: "The leak is fixed" })).toBeInTheDocument();
    expect((await screen.findByText("auth.py")).tagName).toBe("STRONG");
    const download = screen.getByRole("link", { name: /patch\.diff/ });
    expect(download).toHaveAttribute("href", "http://localhost:3000/api/v1/me/attachments/a1");
    expect(download).toHaveTextContent("2 KB");
    expect(await screen.findByText("#fix-leak")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /1 of 3 agent mails left/ })).toHaveAttribute("data-level", "low");
    await waitFor(() => expect(gateway.calls).toContain("POST /api/v1/me/mail/m1/read"));
  });

  it("shows a permission request as a card and decides it", async () => {
    act(() => navigate("/inbox/m2"));
    renderApp();
    const card = await screen.findByRole("region", { name: "Permission request" });
    expect(within(card).getByText("systemctl restart app")).toBeInTheDocument();
    await userEvent.click(within(card).getByRole("button", { name: "approve" }));
    expect(await within(card).findByText("You chose “approve”.")).toBeInTheDocument();
    expect(gateway.calls).toContain("POST /api/v1/me/permission/decide");
  });

  it("lists Needs decision oldest first, as the server orders it", async () => {
    act(() => navigate("/decisions"));
    renderApp();
    const list = await screen.findByRole("list", { name: "Needs decision" });
    // A row in the list; the card (once) in the pane.
    expect(await within(list).findAllByRole("button")).not.toHaveLength(0);
    expect(await screen.findAllByRole("region", { name: "Permission request" })).toHaveLength(1);
    expect(gateway.calls).toContain("GET /api/v1/me/permissions?state=open&order=oldest&limit=500");
  });

  it("composes with address suggestions, explains an undeliverable address inline, then sends", async () => {
    renderApp();
    await screen.findByRole("navigation", { name: "Main" });
    await userEvent.keyboard("c");
    const dialog = await screen.findByRole("dialog", { name: "New mail" });
    const to = within(dialog).getByRole("combobox", { name: "To" });
    await userEvent.type(to, "builder@Nowhere");
    await userEvent.type(within(dialog).getByLabelText("Subject"), "Add a health check");
    await userEvent.type(within(dialog).getByLabelText("Message (Markdown)"), "Please add **/health**.");
    await userEvent.type(within(dialog).getByLabelText("Round-trip budget"), "5");
    await userEvent.click(within(dialog).getByRole("button", { name: "Send" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("The agent has no workspace by that name or path.");
    expect(to).toHaveAttribute("aria-invalid", "true");

    await userEvent.clear(to);
    await userEvent.type(to, "buil");
    const options = await within(dialog).findAllByRole("option", {}, { timeout: 3000 });
    expect(options.map((o) => o.textContent)).toEqual([
      expect.stringContaining("builder@ModelRouter.new"),
      expect.stringContaining("builder@ModelRouter"),
      expect.stringContaining("builder@ModelRouter.fix-leak"),
    ]);
    await userEvent.keyboard("{ArrowDown}{Enter}");
    expect(to).toHaveValue("builder@ModelRouter.new");
    await userEvent.click(within(dialog).getByRole("button", { name: "Preview" }));
    expect((await within(dialog).findByText("/health")).tagName).toBe("STRONG");
    await userEvent.click(within(dialog).getByRole("button", { name: "Send" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(gateway.bodies["POST /api/v1/me/mail/send"]).toMatchObject({
      to: "builder@ModelRouter.new", subject: "Add a health check", body: "Please add **/health**.", budget: 5, cc: [], attachment_ids: [],
      session_alias: null,
    });
  });

  it("replies to the sender in the same conversation, quoting the mail", async () => {
    act(() => navigate("/inbox/m1"));
    renderApp();
    await screen.findByRole("heading", { name: "The leak is fixed" });
    await userEvent.keyboard("r");
    const dialog = await screen.findByRole("dialog", { name: "Reply" });
    expect(within(dialog).getByRole("combobox", { name: "To" })).toHaveValue("builder@ModelRouter.fix-leak");
    expect(within(dialog).getByLabelText("Subject")).toHaveValue("Re: The leak is fixed");
    const body = within(dialog).getByLabelText<HTMLTextAreaElement>("Message (Markdown)");
    const when = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" }).format(new Date("2026-12-01T10:00:00Z"));
    expect(body.value).toContain(`builder@ModelRouter.fix-leak (${when}):\n> Fixed in **auth.py**.`);
    expect(within(dialog).queryByLabelText("Round-trip budget")).not.toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole("button", { name: "Send" }));
    await waitFor(() => expect(gateway.bodies["POST /api/v1/me/mail/send"]).toMatchObject({ reply_to: "m1", to: "builder@ModelRouter.fix-leak" }));
  });

  it("replies under the mail without leaving it", async () => {
    act(() => navigate("/inbox/m1"));
    renderApp();
    await userEvent.click(await screen.findByRole("button", { name: "Reply to builder@ModelRouter.fix-leak…" }));
    await userEvent.type(screen.getByLabelText("Reply to builder@ModelRouter.fix-leak"), "Thanks!");
    await userEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(await screen.findByText("Sent.")).toBeInTheDocument();
    expect(gateway.bodies["POST /api/v1/me/mail/send"]).toMatchObject({
      to: "builder@ModelRouter.fix-leak", subject: "Re: The leak is fixed", body: "Thanks!", reply_to: "m1",
    });
    expect(window.location.pathname).toBe("/inbox/m1");
  });

  it("goes back to the login page when the login expires", async () => {
    renderApp();
    await screen.findByRole("button", { name: /The leak is fixed/ });
    gateway.signedIn = false;
    act(() => navigate("/sent"));
    expect(await screen.findByRole("button", { name: "Sign in" })).toBeInTheDocument();
  });

  it("opens the shortcut help with ?", async () => {
    renderApp();
    await screen.findByRole("navigation", { name: "Main" });
    await userEvent.keyboard("?");
    expect(await screen.findByRole("dialog", { name: "Keyboard shortcuts" })).toBeInTheDocument();
  });

  it("moves through the list with j / k and goes to the inbox with g i", async () => {
    renderApp();
    await screen.findByRole("button", { name: /The leak is fixed/ });
    await userEvent.keyboard("j");
    await waitFor(() => expect(window.location.pathname).toBe("/inbox/m1"));
    await userEvent.keyboard("j");
    await waitFor(() => expect(window.location.pathname).toBe("/inbox/m2"));
    await userEvent.keyboard("k");
    await waitFor(() => expect(window.location.pathname).toBe("/inbox/m1"));
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(window.location.pathname).toBe("/inbox"));
    act(() => navigate("/sent"));
    await userEvent.keyboard("gi");
    await waitFor(() => expect(window.location.pathname).toBe("/inbox"));
  });
});

describe("the app on a narrow screen", () => {
  beforeEach(() => {
    vi.stubGlobal("matchMedia", (query: string) => ({
      matches: query === "(max-width: 767px)",
      media: query,
      addEventListener: () => {},
      removeEventListener: () => {},
    }));
  });

  it("keeps the list mounted under the mail, with a back button only while a mail is open", async () => {
    renderApp();
    expect(await screen.findByRole("button", { name: "More" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Compose", hidden: false })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Back/ })).not.toBeInTheDocument();
    const row = await screen.findByRole("button", { name: /The leak is fixed/ });
    await userEvent.click(row);
    expect(await screen.findByRole("button", { name: /Back/ })).toBeInTheDocument();
    expect(row).toBeInTheDocument(); // the same element: the list was not unmounted
    expect(row.closest("[inert]")).not.toBeNull(); // and cannot take focus behind the mail
    await userEvent.click(screen.getByRole("button", { name: /Back/ }));
    await waitFor(() => expect(window.location.pathname).toBe("/inbox"));
    expect(screen.queryByRole("button", { name: /Back/ })).not.toBeInTheDocument();
    expect(row).toBeInTheDocument();
    expect(row.closest("[inert]")).toBeNull();
    expect(row).toHaveAttribute("aria-current", "true"); // the selection is kept
  });
});
