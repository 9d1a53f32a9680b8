/**
 * "Needs you" at `/`: a request, the question with its editor open, the conversation at
 * one round left; a keyboard decision held for the undo window, undone or sent.
 */
import { QueryClient } from "@tanstack/react-query";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { initI18n } from "@/lib/i18n";
import { navigate } from "@/lib/router";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { App } from "../App";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });
const DECIDE = "POST /api/v1/me/permission/decide";

initI18n("en");

beforeEach(() => {
  installFakeGateway();
  localStorage.setItem("agentmail.undoWindowMs", "600");
  act(() => navigate("/"));
});
afterEach(() => {
  localStorage.removeItem("agentmail.undoWindowMs");
  vi.unstubAllGlobals();
});

const renderApp = () => render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} />);

it("lists the request, the question with its editor open and the conversation out of rounds", async () => {
  renderApp();
  expect(await screen.findByRole("heading", { level: 1, name: "Needs you" })).toBeInTheDocument();
  const requests = await screen.findByRole("region", { name: "Permission requests" });
  expect(within(requests).getAllByRole("region", { name: "Permission request" })).toHaveLength(1);
  const questions = await screen.findByRole("region", { name: "Questions for you" });
  expect(within(questions).getByText("Which branch?")).toBeInTheDocument();
  expect(within(questions).getByRole("textbox")).toBeInTheDocument();
  const budgets = await screen.findByRole("region", { name: "Conversations out of rounds" });
  expect(within(budgets).getByText("1 round left of 3")).toBeInTheDocument();
  expect(screen.queryByText("Nothing needs you now")).not.toBeInTheDocument();
});

it("holds a keyboard decision: undone, nothing is sent; let go, it is sent with its note", async () => {
  renderApp();
  const request = await screen.findByRole("group", { name: /^Request:/ });
  act(() => request.focus());
  await userEvent.keyboard("1");
  expect(within(request).getByRole("textbox")).toHaveFocus();
  await userEvent.keyboard("fine{Enter}");
  expect(await screen.findByText("Decided “approve”")).toBeInTheDocument();
  expect(screen.queryByRole("group", { name: /^Request:/ })).not.toBeInTheDocument();
  await userEvent.click(screen.getByRole("button", { name: "Undo" }));
  await new Promise((resolve) => setTimeout(resolve, 900));
  expect(gateway.calls).not.toContain(DECIDE);

  const again = await screen.findByRole("group", { name: /^Request:/ });
  act(() => again.focus());
  await userEvent.keyboard("n");
  expect(within(again).getByRole("textbox")).toHaveFocus();
  act(() => again.focus());
  await userEvent.keyboard("2");
  await userEvent.keyboard("no{Enter}");
  await waitFor(() => expect(gateway.calls).toContain(DECIDE));
  expect(gateway.bodies[DECIDE]).toMatchObject({ decision: "reject", note: "no" });
});

it("raises a budget in place with a reason", async () => {
  renderApp();
  const budgets = await screen.findByRole("region", { name: "Conversations out of rounds" });
  await userEvent.clear(within(budgets).getByLabelText("New budget (rounds)"));
  await userEvent.type(within(budgets).getByLabelText("New budget (rounds)"), "8");
  await userEvent.type(within(budgets).getByLabelText("Why (optional, the agent sees it)"), "finish the tests");
  await userEvent.click(within(budgets).getByRole("button", { name: "Raise the budget" }));
  await waitFor(() =>
    expect(gateway.bodies["PATCH /api/v1/me/sessions/s1"]).toEqual({ budget_limit: 8, reason: "finish the tests" }),
  );
});

it("sends a held decision at once when the page is left for another view", async () => {
  localStorage.setItem("agentmail.undoWindowMs", "60000");
  renderApp();
  const request = await screen.findByRole("group", { name: /^Request:/ });
  act(() => request.focus());
  await userEvent.keyboard("1{Enter}");
  expect(await screen.findByText("Decided “approve”")).toBeInTheDocument();
  expect(gateway.calls).not.toContain(DECIDE);
  act(() => navigate("/inbox"));
  await waitFor(() => expect(gateway.calls).toContain(DECIDE));
});
