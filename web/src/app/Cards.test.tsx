/**
 * Cards show what the conversation list item carries (`latest`,
 * `participant_details`): the latest sender and excerpt and each agent's
 * online dot, with no request of their own; the dots follow `agent_online`.
 */
import { QueryClient } from "@tanstack/react-query";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { initI18n } from "@/lib/i18n";
import { navigate } from "@/lib/router";
import { writePreference } from "@/lib/storage";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { sessionKeys } from "@/features/conversations/api/keys";
import { App } from "./App";
import { applyEvent } from "./liveEvents";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

initI18n("en");

beforeEach(() => installFakeGateway());
afterEach(() => {
  writePreference("view", null);
  vi.unstubAllGlobals();
});

const renderApp = () => render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} />);

describe("cards", () => {
  it("in the inbox show the conversation's latest sender and excerpt, and the agent's online dot", async () => {
    writePreference("view", "cards");
    act(() => navigate("/inbox"));
    renderApp();
    const card = await screen.findByRole("button", { name: /The leak is fixed/ });
    // Once the conversation list is in: builder as a participant and as the latest sender.
    expect(await within(card).findAllByText("builder")).toHaveLength(2);
    expect(card).toHaveTextContent("builder: Should I fix it on main or on release-2?");
    expect(within(card).getByRole("img", { name: "Online" })).toBeInTheDocument();
    expect(card).toHaveTextContent("#fix-leak");
    expect(card).toHaveTextContent("Waiting");
    expect(within(card).getByText("Round-trip budget: 1 of 3 agent mails left")).toBeInTheDocument();
    // I am not listed among the participants of my own card.
    expect(within(card).queryByText("jianf")).not.toBeInTheDocument();
    // One conversation list for every card; no directory of agents.
    expect(gateway.calls.filter((c) => c.startsWith("GET /api/v1/me/sessions"))).toHaveLength(1);
    expect(gateway.calls.some((c) => c.startsWith("GET /api/v1/agents"))).toBe(false);
  });

  it("are one per conversation, with its unread mail and task progress, and open its newest mail", async () => {
    writePreference("view", "cards");
    act(() => navigate("/inbox"));
    renderApp();
    const card = await screen.findByRole("button", { name: /The leak is fixed/ });
    // Three mails of the inbox, one conversation: one card.
    const list = screen.getByRole("region", { name: "Mail" });
    expect(within(list).getAllByRole("button")).toHaveLength(1);
    expect(await within(card).findByText("1 unread")).toBeInTheDocument();
    expect(within(card).getByText("1/3")).toBeInTheDocument();
    expect(within(card).getByText("1 of 3 tasks done")).toBeInTheDocument();
    expect(card).not.toHaveTextContent("**");
    await userEvent.click(card);
    expect(window.location.pathname).toBe("/inbox/m1");
    // Opening the unread mail marks it read, and the cards' unread counts are asked for again.
    await waitFor(() => expect(gateway.calls).toContain("POST /api/v1/me/mail/m1/read"));
    await waitFor(() => expect(gateway.calls.filter((c) => c.startsWith("GET /api/v1/me/sessions")).length).toBeGreaterThan(1));
  });

  it("in Conversations show the latest sender and excerpt and the dots, from the list alone", async () => {
    act(() => navigate("/conversations"));
    renderApp();
    const card = await screen.findByRole("button", { name: /Fix the leak/ });
    expect(card).toHaveTextContent("builder: Should I fix it on main or on release-2?");
    expect(within(card).getByRole("img", { name: "Online" })).toBeInTheDocument();
    expect(gateway.calls.some((c) => c.startsWith("GET /api/v1/agents"))).toBe(false);
  });
});

it("agent_online refreshes the conversation list, where the dots come from", () => {
  const client = new QueryClient();
  client.setQueryData(sessionKeys.lists(), { sessions: [], total: 0 });
  applyEvent(client, "agent_online", { agent_name: "builder", status: "offline", last_seen: "2026-12-01T12:00:00Z" });
  expect(client.getQueryState(sessionKeys.lists())?.isInvalidated).toBe(true);
});

it("the Agents page lists each agent's open conversations from the conversation list, and opens one", async () => {
  act(() => navigate("/agents"));
  renderApp();
  const heading = await screen.findByRole("heading", { name: "builder" });
  const card = heading.closest("li") as HTMLElement;
  expect(await within(card).findByText("1 open conversation")).toBeInTheDocument();
  const conversation = within(card).getByRole("button", { name: /Fix the leak/ });
  expect(conversation).toHaveTextContent("#fix-leak");
  expect(conversation).toHaveTextContent("Waiting");
  await userEvent.click(conversation);
  expect(window.location.pathname).toBe("/conversations/s1");
});
