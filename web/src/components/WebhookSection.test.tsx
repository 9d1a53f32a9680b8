/**
 * Webhooks against the fake gateway (answering as api/routes/webhooks.py): made with
 * the events chosen and its secret shown once with a copy button; a URL the gateway
 * refuses said in plain words; rotated, turned on again, its deliveries replayed,
 * deleted only after asking; an admin's under /admin/webhooks.
 */
import { screen, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fakeAccount, gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { WebhookSection } from "./WebhookSection";

const userEvent = userEventLib.setup({ delay: null });

beforeEach(() => installFakeGateway());

async function create(url: string) {
  await userEvent.type(await screen.findByLabelText("Endpoint URL (https)"), url);
  await userEvent.click(screen.getByRole("button", { name: "Add webhook" }));
}

describe("webhooks", () => {
  it("makes one with the events chosen and shows its secret once, with a copy button", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText } });
    renderUi(<WebhookSection scope="me" />);
    expect(await screen.findByText("No webhook yet.")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("checkbox", { name: "conversation.updated" }));
    await create("https://hooks.example.com/in");
    expect(await screen.findByText("whsec_first")).toBeInTheDocument();
    expect(gateway.bodies["POST /api/v1/me/webhooks"]).toEqual({
      url: "https://hooks.example.com/in",
      events: ["mail.received", "permission.requested", "permission.decided", "question.asked"],
      description: "",
    });
    await userEvent.click(screen.getByRole("button", { name: "Copy Signing secret" }));
    expect(writeText).toHaveBeenCalledWith("whsec_first");
    expect(await screen.findByText("On")).toBeInTheDocument();
  });

  it("says why a URL is refused", async () => {
    renderUi(<WebhookSection scope="me" />);
    await create("http://hooks.example.com/in");
    expect(await screen.findByRole("alert")).toHaveTextContent("it takes an https URL to a public host");
  });

  it("rotates the secret, turns a disabled one on, replays a delivery, deletes after asking", async () => {
    fakeAccount.webhooks = [
      { webhook_id: "w1", url: "https://a.example/h", events: ["mail.received"], description: "", owner: "jianf", scope: "own", enabled: false, failures: 8, disabled_reason: "8 deliveries in a row failed", created_at: "" },
    ];
    renderUi(<WebhookSection scope="me" />);
    expect(await screen.findByText(/Turned off after 8 failed deliveries in a row/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Turn on again" }));
    expect(await screen.findByText("On")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "New secret" }));
    expect(await screen.findByText("whsec_rotated")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Deliveries" }));
    expect(await screen.findByText("failed")).toBeInTheDocument();
    expect(screen.getByText(/8 attempts · HTTP 500/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: /^Send again/ }));
    expect(gateway.bodies["POST /api/v1/me/webhooks/w1/replay"]).toEqual({ event_id: 41 });
    await userEvent.click(screen.getByRole("button", { name: "Delete https://a.example/h" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete the webhook to https://a.example/h?" });
    expect(gateway.calls).not.toContain("DELETE /api/v1/me/webhooks/w1");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete" }));
    expect(await screen.findByText("No webhook yet.")).toBeInTheDocument();
  });

  it("lists an admin's under /admin/webhooks", async () => {
    renderUi(<WebhookSection scope="admin" />);
    expect(await screen.findByText(/hear everyone's events/)).toBeInTheDocument();
    expect(gateway.calls).toContain("GET /api/v1/admin/webhooks");
  });
});
