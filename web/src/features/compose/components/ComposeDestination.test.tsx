/**
 * Compose says where the mail goes: `….new` is offered first for every agent
 * workspace, a line under To says what the address reaches (a new conversation,
 * the default one with its rounds left, an alias's, the replied mail's), a
 * `.new` address gets an alias field that follows the subject, and what the
 * person typed is never changed.
 */
import { act, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Candidate } from "@/api";
import { base } from "@/test/fixtures";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { closeCompose, type ComposeRequest } from "../hooks/composeStore";
import { suggestionQuery, withNew } from "./AddressField";
import { ComposeDialog } from "./ComposeDialog";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

beforeEach(() => installFakeGateway());
afterEach(() => {
  act(() => closeCompose());
  vi.unstubAllGlobals();
});

async function compose(request: ComposeRequest = { mode: "new" }, language: "en" | "zh" = "en") {
  renderUi(<ComposeDialog request={request} me="jianf@" />, { language });
  const dialog = await screen.findByRole("dialog");
  const to = within(dialog).getByRole("combobox", { name: language === "en" ? "To" : "收件人" });
  return { dialog, to };
}

/** The line under To, once the typed address has settled and been answered. */
async function reachLine(to: HTMLElement) {
  await waitFor(() => expect(to.getAttribute("aria-describedby")).toBeTruthy());
  const line = document.getElementById(to.getAttribute("aria-describedby") ?? "");
  expect(line).not.toBeNull();
  return line as HTMLElement;
}

const sent = () => gateway.bodies["POST /api/v1/me/mail/send"] as Record<string, unknown>;

describe("the suggestions", () => {
  const agent = (address: string): Candidate => ({ address, email: "x", kind: "agent", description: "", session_id: null });
  const found: Candidate[] = [
    agent("builder@ModelRouter"),
    agent("builder@app"),
    { address: "jianf@", email: "x", kind: "human", description: "", session_id: null },
    { address: "builder@ModelRouter.fix-leak", email: "x", kind: "conversation", description: "", session_id: "s1" },
  ];

  it("put `.new` first for every agent workspace, and none for people or conversations", () => {
    expect(withNew(found, "b").map((o) => o.address)).toEqual([
      "builder@ModelRouter.new",
      "builder@ModelRouter",
      "builder@app.new",
      "builder@app",
      "jianf@",
      "builder@ModelRouter.fix-leak",
    ]);
  });

  it("keep offering `.new` while it is being typed after the address", () => {
    expect(suggestionQuery("builder@ModelRouter.ne")).toBe("builder@ModelRouter");
    expect(suggestionQuery("builder@ModelRouter.")).toBe("builder@ModelRouter");
    expect(suggestionQuery("builder@ModelRouter.f")).toBe("builder@ModelRouter.f");
    expect(suggestionQuery("builder.n")).toBe("builder.n");
    expect(withNew(found, "builder@ModelRouter.ne").map((o) => o.address)).toEqual(["builder@ModelRouter.new"]);
  });

  it("are listed in that order in the field", async () => {
    const { to } = await compose();
    await userEvent.type(to, "bui");
    await waitFor(() => expect(screen.getAllByRole("option")).toHaveLength(3));
    expect(screen.getAllByRole("option").map((o) => o.querySelector(".font-mono")?.textContent)).toEqual([
      "builder@ModelRouter.new",
      "builder@ModelRouter",
      "builder@ModelRouter.fix-leak",
    ]);
    expect(screen.getAllByRole("option")[0]).toHaveTextContent("a new conversation");
  });
});

describe("the line under To", () => {
  it("names the default conversation an address continues, with its rounds, and sends there as typed", async () => {
    const { dialog, to } = await compose();
    await userEvent.type(to, "builder@ModelRouter");
    const line = await reachLine(to);
    expect(line).toHaveTextContent("Continues the default conversation #weekly-report · 6/20 rounds left");
    // Continuing a conversation: no budget to set, no alias to give.
    expect(within(dialog).queryByLabelText("Round-trip budget")).not.toBeInTheDocument();
    expect(within(dialog).queryByLabelText("Alias of the new conversation")).not.toBeInTheDocument();
    await userEvent.type(within(dialog).getByLabelText("Subject"), "Another task");
    await userEvent.click(within(dialog).getByRole("button", { name: "Send" }));
    await waitFor(() => expect(sent()).toMatchObject({ to: "builder@ModelRouter", session_alias: null, budget: null }));
  });

  it("says `.alias` continues that conversation, its last round marked", async () => {
    const { to } = await compose();
    await userEvent.type(to, "builder@ModelRouter.fix-leak");
    const line = await reachLine(to);
    expect(line).toHaveTextContent("Continues #fix-leak · 1/3 rounds left");
    expect(line.querySelector(".text-warn")).toHaveTextContent("1/3 rounds left");
  });

  it("asks with reply_to for a reply, as the send will route it", async () => {
    const { to } = await compose({ mode: "reply", mail: { ...base, from: "builder@ModelRouter" } });
    expect(to).toHaveValue("builder@ModelRouter");
    expect(await reachLine(to)).toHaveTextContent(
      "Continues #fix-leak, the conversation of the mail you answer · 1/3 rounds left",
    );
    expect(gateway.calls).toContain("GET /api/v1/me/addresses/check?address=builder%40ModelRouter&reply_to=m1");
  });

  it("says when a first mail starts the default conversation", async () => {
    const { to } = await compose();
    await userEvent.type(to, "ana@");
    expect(await reachLine(to)).toHaveTextContent(
      "Starts your default conversation with ana@: later mail to this address continues it",
    );
  });

  it("shows nothing for an address being changed, and the problem instead once it is left", async () => {
    const { dialog, to } = await compose();
    await userEvent.type(to, "builder@ModelRouter");
    await reachLine(to);
    await userEvent.type(to, "X");
    expect(to.getAttribute("aria-describedby")).toBeNull();
    await userEvent.click(within(dialog).getByLabelText("Subject"));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("The agent has no workspace by that name or path.");
    expect(to).toHaveValue("builder@ModelRouterX");
  });

  it("speaks Chinese", async () => {
    const { to } = await compose({ mode: "new" }, "zh");
    await userEvent.type(to, "builder@ModelRouter");
    expect(await reachLine(to)).toHaveTextContent("继续默认会话 #weekly-report · 剩余 6/20 轮");
  });
});

describe("a new conversation's alias", () => {
  async function pickNew() {
    const opened = await compose();
    await userEvent.type(within(opened.dialog).getByLabelText("Subject"), "Add a health check");
    await userEvent.type(opened.to, "bui");
    await userEvent.click(await screen.findByRole("option", { name: /^builder@ModelRouter\.new/ }));
    expect(opened.to).toHaveValue("builder@ModelRouter.new");
    expect(await reachLine(opened.to)).toHaveTextContent(/^New conversation$/);
    return { ...opened, alias: within(opened.dialog).getByLabelText("Alias of the new conversation") };
  }

  it("follows the subject and is left to the gateway, which names it the same", async () => {
    const { dialog, alias } = await pickNew();
    expect(alias).toHaveValue("add-a-health-check");
    expect(within(dialog).getByText("Later mail to builder@ModelRouter.add-a-health-check continues this conversation.")).toBeInTheDocument();
    await userEvent.type(within(dialog).getByLabelText("Subject"), " now");
    expect(alias).toHaveValue("add-a-health-check-now");
    await userEvent.click(within(dialog).getByRole("button", { name: "Send" }));
    await waitFor(() =>
      expect(sent()).toMatchObject({ to: "builder@ModelRouter.new", subject: "Add a health check now", session_alias: null }),
    );
  });

  it("sends the alias the person typed", async () => {
    const { dialog, alias } = await pickNew();
    await userEvent.clear(alias);
    await userEvent.type(alias, "health");
    await userEvent.type(within(dialog).getByLabelText("Subject"), "!");
    expect(alias).toHaveValue("health");
    await userEvent.click(within(dialog).getByRole("button", { name: "Send" }));
    await waitFor(() => expect(sent()).toMatchObject({ to: "builder@ModelRouter.new", session_alias: "health" }));
  });

  it("refuses an alias the gateway would refuse, before sending", async () => {
    const { dialog, alias } = await pickNew();
    await userEvent.clear(alias);
    await userEvent.type(alias, "not valid");
    expect(within(dialog).getByRole("alert")).toHaveTextContent("An alias is up to 64 letters");
    expect(alias).toHaveAttribute("aria-invalid", "true");
    expect(within(dialog).getByRole("button", { name: "Send" })).toBeDisabled();
    await userEvent.clear(alias);
    await userEvent.type(alias, "new");
    expect(within(dialog).getByRole("button", { name: "Send" })).toBeDisabled();
    await userEvent.clear(alias);
    expect(within(dialog).getByRole("button", { name: "Send" })).toBeEnabled();
  });
});
