/**
 * The Cc field suggests like To, for the address being typed (the last
 * entry): a pick replaces only that entry and leaves `, ` for the next, and
 * the check when the field is left still explains each undeliverable address.
 */
import { act, screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { closeCompose } from "../hooks/composeStore";
import { ComposeDialog } from "./ComposeDialog";

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

beforeEach(() => installFakeGateway());
afterEach(() => {
  act(() => closeCompose());
  vi.unstubAllGlobals();
});

const suggested = () => gateway.calls.filter((c) => c.startsWith("GET /api/v1/me/addresses/suggest"));

async function openCc(language: "en" | "zh" = "en") {
  renderUi(<ComposeDialog request={{ mode: "new", to: "builder@ModelRouter" }} me="jianf@" />, { language });
  const dialog = await screen.findByRole("dialog");
  const cc = within(dialog).getByRole("combobox", { name: language === "en" ? "Cc" : "抄送" });
  return { dialog, cc };
}

async function optionsOf(cc: HTMLElement) {
  await waitFor(() => expect(cc).toHaveAttribute("aria-expanded", "true"));
  const list = screen.getByRole("listbox", { name: "Address suggestions" });
  expect(cc).toHaveAttribute("aria-controls", list.id);
  return within(list).getAllByRole("option");
}

describe("the Cc field's suggestions", () => {
  it("suggests for the address typed after a first one, not for the whole field", async () => {
    const { cc } = await openCc();
    await userEvent.type(cc, "ana@, builder@ModelRouter.f");
    // The list shows the last answer until the debounced one arrives: wait for it.
    await waitFor(async () =>
      expect((await optionsOf(cc)).map((o) => o.querySelector(".font-mono")?.textContent)).toEqual(["builder@ModelRouter.fix-leak"]),
    );
    expect(suggested()).toContain("GET /api/v1/me/addresses/suggest?q=builder%40ModelRouter.f&limit=8");
    // No request ever carried the whole field (its comma).
    expect(suggested().some((c) => c.includes("%2C"))).toBe(false);
  });

  it("picks with the mouse: the first address stays and `, ` is left for the next", async () => {
    const { cc } = await openCc();
    await userEvent.type(cc, "ana@, bui");
    await optionsOf(cc);
    await userEvent.click(await screen.findByRole("option", { name: /builder@ModelRouter\.fix-leak/ }));
    expect(cc).toHaveValue("ana@, builder@ModelRouter.fix-leak, ");
    expect(cc).toHaveFocus();
    expect(cc).toHaveAttribute("aria-expanded", "false");
  });

  it("moves with the arrows, picks with Enter and closes with Escape, as To does", async () => {
    const { cc } = await openCc();
    await userEvent.type(cc, "ana@; bui");
    await waitFor(async () => expect(await optionsOf(cc)).toHaveLength(3));
    await userEvent.keyboard("{ArrowDown}{ArrowDown}");
    const [first, second] = screen.getAllByRole("option");
    expect(first).toHaveTextContent("builder@ModelRouter.new");
    expect(second).toHaveAttribute("aria-selected", "true");
    expect(cc).toHaveAttribute("aria-activedescendant", second?.id);
    expect(second?.querySelector(".font-mono")).toHaveTextContent(/^builder@ModelRouter$/);
    await userEvent.keyboard("{Enter}");
    expect(cc).toHaveValue("ana@; builder@ModelRouter, ");
    expect(screen.getByRole("dialog")).toBeInTheDocument();

    await userEvent.type(cc, "b");
    await optionsOf(cc);
    await userEvent.keyboard("{Escape}");
    expect(cc).toHaveAttribute("aria-expanded", "false");
    // Escape closed the list, not the compose window.
    expect(screen.getByRole("dialog")).toBeInTheDocument();
    expect(cc).toHaveValue("ana@; builder@ModelRouter, b");
  });

  it("still explains each undeliverable address when the field is left", async () => {
    const { dialog, cc } = await openCc();
    await userEvent.type(cc, "bui");
    await optionsOf(cc);
    await userEvent.keyboard("{ArrowDown}{ArrowDown}{Enter}");
    await userEvent.type(cc, "ghost@");
    await userEvent.click(within(dialog).getByLabelText("Subject"));
    const message = await within(dialog).findByRole("alert");
    expect(within(message).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "ghost@: Nobody has this name, so the mail cannot be delivered.",
    ]);
    expect(cc).toHaveAttribute("aria-invalid", "true");
    expect(cc.getAttribute("aria-describedby")).toBe(message.id);
    expect(gateway.calls).toEqual(expect.arrayContaining([
      "GET /api/v1/me/addresses/check?address=builder%40ModelRouter",
      "GET /api/v1/me/addresses/check?address=ghost%40",
    ]));
  });

  it("keeps its accessible name and hint in Chinese", async () => {
    const { cc } = await openCc("zh");
    expect(cc).toHaveAttribute("placeholder", "多个地址用逗号分隔");
  });
});
