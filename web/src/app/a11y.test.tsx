/**
 * axe-core on the main views (in jsdom: everything but colour contrast, which
 * needs layout; the browser run with @axe-core/playwright covers that).
 */
import { QueryClient } from "@tanstack/react-query";
import { act, render, screen } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import axe from "axe-core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { closeCompose } from "@/features/compose/hooks/composeStore";
import { initI18n } from "@/lib/i18n";
import { navigate } from "@/lib/router";
import { AdminPage } from "@/features/admin/components/AdminPage";
import { fileInFake, seedFolders } from "@/test/fakeFolders";
import { base, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { App } from "./App";

// No pause between keystrokes (the tests type a lot); no pointer-events check, which races
// Radix's dialog setting `pointer-events` on its content a tick after it opens.
const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: 0 });

initI18n("en");

beforeEach(() => installFakeGateway());
afterEach(() => {
  act(() => closeCompose());
  vi.unstubAllGlobals();
});

async function violations(): Promise<string[]> {
  const result = await axe.run(document.body, {
    rules: { "color-contrast": { enabled: false } },
    resultTypes: ["violations"],
  });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

const renderApp = () => render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })} />);

// Without layout there is no contrast check, so one theme tells as much as two.
describe("accessibility", () => {
  it.each([
    ["inbox with a mail open", "/inbox/m1", "The leak is fixed"],
    ["a permission card", "/inbox/m2", "May I restart the server?"],
    ["needs you", "/", "Which branch?"],
    ["needs decision", "/decisions", "Needs decision"],
    ["conversations", "/conversations/s1", "Fix the leak"],
    ["agents", "/agents", "builder"],
    ["account", "/account", "User keys"],
  ])("%s has no serious or critical violations", async (_name, path, text) => {
    act(() => navigate(path));
    renderApp();
    await screen.findAllByText(text, {}, { timeout: 3000 });
    expect(await violations()).toEqual([]);
  });

  it("a folder of my own, nested in the navigation, with Move to… open has no serious or critical violations", async () => {
    const [receipts] = seedFolders("Receipts", "Projects/2026", { name: `Long/${"quarterly-".repeat(20)}`, unread: 2 });
    fileInFake(base, receipts?.folder_id ?? "");
    act(() => navigate(`/folders/${receipts?.folder_id}/m1`));
    renderApp();
    await screen.findByRole("heading", { level: 2, name: "The leak is fixed" });
    await userEvent.click(screen.getByRole("button", { name: "Move to…" }));
    await screen.findByRole("menuitem", { name: "Receipts (where it is now)" });
    expect(await violations()).toEqual([]);
  });

  it("compose has no serious or critical violations", async () => {
    act(() => navigate("/inbox"));
    renderApp();
    await screen.findByRole("navigation", { name: "Main" });
    await userEvent.keyboard("c");
    await screen.findByRole("dialog", { name: "New mail" });
    expect(await violations()).toEqual([]);
  });
});

it("admin has no serious or critical violations", async () => {
  renderUi(<AdminPage />);
  await screen.findByRole("checkbox", { name: "Admin: jianf" });
  expect(await violations()).toEqual([]);
});

it("finds a violation when there is one (the check is live)", async () => {
  render(<button type="button" />);
  expect((await violations()).join()).toContain("button-name");
});

it("the login page has no serious or critical violations", async () => {
  installFakeGateway();
  const { gateway } = await import("@/test/fakeGateway");
  gateway.signedIn = false;
  renderApp();
  await screen.findByRole("button", { name: "Sign in" });
  expect(await violations()).toEqual([]);
});
