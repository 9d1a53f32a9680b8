/**
 * An agent's question (`mail_type: question`) shows "Needs reply" and opens
 * with the reply editor open under it, until I have answered it (`answered`,
 * set by the gateway when my reply is stored).
 */
import { QueryClient } from "@tanstack/react-query";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { initI18n } from "@/lib/i18n";
import { navigate } from "@/lib/router";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { App } from "./App";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

initI18n("en");

beforeEach(() => {
  installFakeGateway();
  act(() => navigate("/inbox"));
});
afterEach(() => vi.unstubAllGlobals());

const renderApp = () => render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} />);
const editorLabel = "builder@ModelRouter.fix-leak asks: your answer";

describe("a question from an agent", () => {
  it("needs a reply, opens with the reply editor open, and stops needing one once answered", async () => {
    renderApp();
    const row = await screen.findByRole("button", { name: /Which branch\?/ });
    expect(within(row).getByText("Needs reply")).toBeInTheDocument();
    expect(within(screen.getByRole("button", { name: /The leak is fixed/ })).queryByText("Needs reply")).not.toBeInTheDocument();

    await userEvent.click(row);
    const reader = await screen.findByRole("article", { name: /Which branch\?/ });
    expect(within(reader).getByText("Needs reply")).toBeInTheDocument();
    const editor = await within(reader).findByLabelText(editorLabel);
    expect(editor).toHaveFocus();

    await userEvent.type(editor, "On main, please.");
    await userEvent.click(within(reader).getByRole("button", { name: "Send" }));
    expect(await within(reader).findByText("Sent.")).toBeInTheDocument();
    expect(gateway.bodies["POST /api/v1/me/mail/send"]).toMatchObject({ reply_to: "m3", body: "On main, please." });
    await waitFor(() => expect(within(reader).queryByText("Needs reply")).not.toBeInTheDocument());
    await waitFor(() => expect(within(row).queryByText("Needs reply")).not.toBeInTheDocument());
  });

  it("once answered, is a mail like any other: no badge, the reply editor closed", async () => {
    gateway.answered.add("m3");
    act(() => navigate("/inbox/m3"));
    renderApp();
    const reader = await screen.findByRole("article", { name: /Which branch\?/ });
    expect(within(reader).queryByText("Needs reply")).not.toBeInTheDocument();
    expect(within(reader).queryByLabelText(editorLabel)).not.toBeInTheDocument();
    expect(within(reader).getByRole("button", { name: "Reply to builder@ModelRouter.fix-leak…" })).toBeInTheDocument();
  });
});

it("shows what each mail of a conversation waits for: a decision, a reply", async () => {
  act(() => navigate("/conversations/s1"));
  renderApp();
  const list = (await screen.findAllByText("Needs reply"))[0]?.closest("ol") as HTMLElement;
  expect(within(list).getByText("Needs reply")).toBeInTheDocument();
  expect(within(list).getByText("Needs decision")).toBeInTheDocument();
});
