/**
 * The search box against the fake gateway's `GET /me/search` (which answers as
 * the real route does): debounced, results with the match marked, paging by
 * scrolling, a result opening in the reading pane, `/` and Escape, the empty
 * answer and the API's errors inline.
 */
import { QueryClient } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Mail } from "@/api";
import { initI18n } from "@/lib/i18n";
import { navigate } from "@/lib/router";
import { base, gateway, installFakeGateway } from "@/test/fakeGateway";
import { App } from "./App";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

initI18n("en");

beforeEach(() => {
  installFakeGateway();
  window.history.replaceState(null, "", "/inbox");
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const renderApp = () => render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} />);
// The search box's own requests: "Needs you" counts questions and failed turns by search too.
const searchCalls = () =>
  gateway.calls.filter((c) => c.startsWith("GET /api/v1/me/search") && !/limit=50$/.test(c));

async function searchBox() {
  await screen.findByRole("button", { name: /The leak is fixed/ });
  return screen.getByRole("searchbox", { name: "Search" });
}

function deployMail(index: number): Mail {
  return {
    ...base, mail_id: `d${index}`, seq: 100 + index, subject: `Deploy report ${index}`, status: "read",
    body: `Nightly run ${index}: the deploy of /srv/app went fine.`, body_preview: "Nightly run",
    created_at: `2026-11-${String(1 + (index % 28)).padStart(2, "0")}T0${index % 10}:00:00Z`, attachments: [],
  };
}

describe("search", () => {
  it("asks the server once typing pauses and lists subject, sender, excerpt and conversation", async () => {
    renderApp();
    await userEvent.type(await searchBox(), "auth");
    const results = await screen.findByRole("region", { name: "Found mail" });
    const hit = await within(results).findByRole("button", { name: /The leak is fixed/ });
    expect(within(hit).getByText("builder")).toBeInTheDocument();
    expect(within(hit).getByText("#fix-leak")).toBeInTheDocument();
    expect(hit.querySelector("mark")).toHaveTextContent("auth");
    expect(hit).toHaveTextContent("Fixed in **auth.py**.");
    expect(within(results).getByRole("status")).toHaveTextContent("1 result");
    // One request for "auth", not one per key.
    expect(searchCalls()).toEqual(["GET /api/v1/me/search?q=auth&limit=30&offset=0"]);
    // The folder's own list is gone while searching.
    expect(screen.queryByRole("region", { name: "Mail" })).not.toBeInTheDocument();
  });

  it("opens a result in the reading pane and keeps the results", async () => {
    renderApp();
    await userEvent.type(await searchBox(), "type:question");
    await userEvent.click(await screen.findByRole("button", { name: /Which branch\?/ }));
    await waitFor(() => expect(window.location.pathname).toBe("/inbox/m3"));
    expect(await screen.findByRole("heading", { name: "Which branch?" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /Which branch\?/ })).toHaveAttribute("aria-current", "true");
  });

  it("passes filters through: from: and is:unread", async () => {
    renderApp();
    await userEvent.type(await searchBox(), "from:builder is:unread");
    const results = await screen.findByRole("region", { name: "Found mail" });
    await within(results).findByRole("button", { name: /The leak is fixed/ });
    expect(within(results).getAllByRole("button")).toHaveLength(1);
    expect(searchCalls().at(-1)).toBe("GET /api/v1/me/search?q=from%3Abuilder%20is%3Aunread&limit=30&offset=0");
  });

  it("says clearly when nothing matches", async () => {
    renderApp();
    await userEvent.type(await searchBox(), "kubernetes");
    expect(await screen.findByText("No mail matches “kubernetes”.")).toBeInTheDocument();
  });

  it.each([
    ["an unknown filter value", "is:maybe", "Unknown search filter. Use from:, to:, alias:, is:unread, is:read, has:attachment or type:."],
    ["a query over 500 characters", "x".repeat(501), "Search: at most 500 characters."],
  ])("says the API's refusal of %s inline, in the user's words", async (_name, q, message) => {
    renderApp();
    const box = await searchBox();
    fireEvent.change(box, { target: { value: q } });
    expect(await screen.findByRole("alert")).toHaveTextContent(message);
  });

  it("loads the next page when the end of the results scrolls into view", async () => {
    gateway.searchable = Array.from({ length: 45 }, (_, i) => deployMail(i));
    renderApp();
    await userEvent.type(await searchBox(), "deploy");
    const results = await screen.findByRole("region", { name: "Found mail" });
    await waitFor(() => expect(within(results).getAllByRole("button", { name: /Deploy report/ })).toHaveLength(30));
    expect(within(results).getByRole("status")).toHaveTextContent("45 results");
    expect(searchCalls()).toHaveLength(1);

    // Scrolled to 100 px above the end of the 30 rows.
    Object.defineProperty(results, "scrollHeight", { configurable: true, value: 2400 });
    Object.defineProperty(results, "clientHeight", { configurable: true, value: 600 });
    results.scrollTop = 1700;
    fireEvent.scroll(results);
    await waitFor(() => expect(within(results).getAllByRole("button", { name: /Deploy report/ })).toHaveLength(45));
    expect(searchCalls()).toEqual([
      "GET /api/v1/me/search?q=deploy&limit=30&offset=0",
      "GET /api/v1/me/search?q=deploy&limit=30&offset=30",
    ]);
    // The last page was short: nothing more to load, and no button offering it.
    expect(within(results).queryByRole("button", { name: "Load more results" })).not.toBeInTheDocument();
  });

  it("loads more from the button at the end too (keyboards, screen readers)", async () => {
    gateway.searchable = Array.from({ length: 31 }, (_, i) => deployMail(i));
    renderApp();
    await userEvent.type(await searchBox(), "deploy");
    await userEvent.click(await screen.findByRole("button", { name: "Load more results" }));
    await waitFor(() => expect(screen.getAllByRole("button", { name: /Deploy report/ })).toHaveLength(31));
  });

  it("focuses the box with / and clears it with Escape", async () => {
    renderApp();
    const box = await searchBox();
    await userEvent.keyboard("/");
    expect(box).toHaveFocus();
    await userEvent.keyboard("leak");
    expect(await screen.findByRole("region", { name: "Found mail" })).toBeInTheDocument();
    await userEvent.keyboard("{Escape}");
    expect(box).toHaveValue("");
    expect(await screen.findByRole("region", { name: "Mail" })).toBeInTheDocument();
    expect(box).toHaveFocus();
    await userEvent.keyboard("{Escape}");
    expect(box).not.toHaveFocus();
    // With the box left, the list's shortcuts work again.
    await userEvent.keyboard("j");
    await waitFor(() => expect(window.location.pathname).toBe("/inbox/m1"));
  });

  it("walks the results with j / k", async () => {
    act(() => navigate("/inbox"));
    renderApp();
    const box = await searchBox();
    await userEvent.type(box, "builder");
    await screen.findByRole("region", { name: "Found mail" });
    await screen.findAllByRole("button", { name: /Which branch\?/ });
    box.blur();
    await userEvent.keyboard("j");
    // Newest first: the question (11:00) before the two 10:00 mails.
    await waitFor(() => expect(window.location.pathname).toBe("/inbox/m3"));
  });
});
