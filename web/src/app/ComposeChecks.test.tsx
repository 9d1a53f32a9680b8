/**
 * Compose asks `GET /me/addresses/check` when a To or Cc field is left and
 * before sending, and says the API's refusal under the field; a deliverable
 * address shows nothing, and the check never stops a send from being tried.
 */
import { QueryClient } from "@tanstack/react-query";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { closeCompose } from "@/features/compose/hooks/composeStore";
import { initI18n } from "@/lib/i18n";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { App } from "./App";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

initI18n("en");

beforeEach(() => {
  installFakeGateway();
  window.history.replaceState(null, "", "/inbox");
});
afterEach(() => {
  act(() => closeCompose());
  vi.unstubAllGlobals();
});

const checks = () => gateway.calls.filter((c) => c.startsWith("GET /api/v1/me/addresses/check"));

async function openCompose() {
  render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} />);
  await screen.findByRole("navigation", { name: "Main" });
  await userEvent.keyboard("c");
  const dialog = await screen.findByRole("dialog", { name: "New mail" });
  return { dialog, to: within(dialog).getByRole("combobox", { name: "To" }), cc: within(dialog).getByLabelText("Cc") };
}

describe("the address check in compose", () => {
  it("explains an undeliverable To when the field is left, and hides it once the address changes", async () => {
    const { dialog, to } = await openCompose();
    await userEvent.type(to, "nobody@");
    await userEvent.click(within(dialog).getByLabelText("Subject"));
    const message = await within(dialog).findByRole("alert");
    expect(message).toHaveTextContent("Nobody has this name, so the mail cannot be delivered.");
    expect(to).toHaveAttribute("aria-invalid", "true");
    expect(to.getAttribute("aria-describedby")).toBe(message.id);
    expect(checks()).toEqual(["GET /api/v1/me/addresses/check?address=nobody%40"]);

    await userEvent.clear(to);
    await userEvent.type(to, "builder@ModelRouter");
    expect(within(dialog).queryByRole("alert")).not.toBeInTheDocument();
    await userEvent.click(within(dialog).getByLabelText("Subject"));
    await waitFor(() => expect(checks()).toContain("GET /api/v1/me/addresses/check?address=builder%40ModelRouter"));
    expect(within(dialog).queryByRole("alert")).not.toBeInTheDocument();
    expect(to).not.toHaveAttribute("aria-invalid");
  });

  it("explains each undeliverable Cc address under the Cc field", async () => {
    const { dialog, to, cc } = await openCompose();
    await userEvent.type(to, "builder@ModelRouter");
    await userEvent.type(cc, "ana@, ghost@");
    await userEvent.click(within(dialog).getByLabelText("Subject"));
    const message = await within(dialog).findByRole("alert");
    expect(message).toHaveTextContent("ghost@: Nobody has this name, so the mail cannot be delivered.");
    expect(message).not.toHaveTextContent("ana@");
    expect(cc).toHaveAttribute("aria-invalid", "true");
    expect(checks()).toEqual(expect.arrayContaining([
      "GET /api/v1/me/addresses/check?address=ana%40",
      "GET /api/v1/me/addresses/check?address=ghost%40",
    ]));
  });

  it("checks before sending, shows the message once, and still lets the send be tried", async () => {
    const { dialog, to } = await openCompose();
    await userEvent.type(to, "builder@Nowhere");
    // Ctrl+Enter sends from the To field itself: it is never left.
    await userEvent.keyboard("{Control>}{Enter}{/Control}");
    const message = await within(dialog).findByRole("alert");
    expect(message).toHaveTextContent("The agent has no workspace by that name or path.");
    expect(checks()).toContain("GET /api/v1/me/addresses/check?address=builder%40Nowhere");
    await waitFor(() => expect(gateway.calls).toContain("POST /api/v1/me/mail/send"));
    expect(within(dialog).getAllByRole("alert")).toHaveLength(1);
    const send = within(dialog).getByRole("button", { name: "Send" });
    await waitFor(() => expect(send).toBeEnabled());
  });

  it("sends a deliverable mail without a word from the check", async () => {
    const { dialog, to } = await openCompose();
    await userEvent.type(to, "builder@ModelRouter");
    await userEvent.type(within(dialog).getByLabelText("Subject"), "Hello");
    await userEvent.click(within(dialog).getByRole("button", { name: "Send" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(gateway.bodies["POST /api/v1/me/mail/send"]).toMatchObject({ to: "builder@ModelRouter", subject: "Hello" });
  });
});
