/**
 * Admin against the fake gateway (answers as api/routes/users.py and keys.py):
 * the admin flag, a password reset, and registering a client-generated agent key.
 */
import { screen, waitFor, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { AdminPage } from "./AdminPage";

const userEvent = userEventLib.setup({ delay: null });

beforeEach(() => installFakeGateway());
afterEach(() => vi.unstubAllGlobals());

async function userRow(name: string) {
  const label = await screen.findByRole("checkbox", { name: `Admin: ${name}` });
  return label.closest("li") as HTMLElement;
}

describe("users", () => {
  it("grants the admin flag, and shows the gateway's refusal to take the last admin's", async () => {
    renderUi(<AdminPage />);
    const jianf = await userRow("jianf");
    await userEvent.click(within(jianf).getByRole("checkbox"));
    await waitFor(() => expect(within(jianf).getByRole("checkbox")).toBeChecked());
    expect(gateway.bodies["PATCH /api/v1/admin/users/jianf"]).toEqual({ is_admin: true });

    await userEvent.click(within(jianf).getByRole("checkbox"));
    await waitFor(() => expect(within(jianf).getByRole("checkbox")).not.toBeChecked());
    const admin = await userRow("admin");
    await userEvent.click(within(admin).getByRole("checkbox"));
    expect(await within(admin).findByRole("alert")).toHaveTextContent("The last admin keeps the admin flag: make another admin first.");
    expect(within(admin).getByRole("checkbox")).toBeChecked();
  });

  it("resets a password, saying the API's refusal of a short one", async () => {
    renderUi(<AdminPage />);
    const jianf = await userRow("jianf");
    await userEvent.click(within(jianf).getByRole("button", { name: "Reset password: jianf" }));
    const input = within(jianf).getByLabelText("New password for jianf");
    await userEvent.type(input, "short");
    await userEvent.click(within(jianf).getByRole("button", { name: "Set password" }));
    expect(await within(jianf).findByRole("alert")).toHaveTextContent("New password: at least 8 characters.");
    await userEvent.clear(input);
    await userEvent.type(input, "a-longer-secret");
    await userEvent.click(within(jianf).getByRole("button", { name: "Set password" }));
    expect(await within(jianf).findByRole("status")).toHaveTextContent("Password of jianf changed");
    expect(gateway.bodies["POST /api/v1/admin/users/jianf/password"]).toEqual({ new_password: "a-longer-secret" });
  });
});

describe("agent keys", () => {
  it("with none yet, says what to do: issue one for an agent's bridge", async () => {
    renderUi(<AdminPage />);
    expect(await screen.findByText(/No agent keys yet: issue one above/)).toBeInTheDocument();
  });

  it("registers a client-generated key as given", async () => {
    renderUi(<AdminPage />);
    await userEvent.type(await screen.findByLabelText("Client-generated key (optional)"), "amk_made_by_the_agent");
    await userEvent.click(screen.getByRole("button", { name: "Issue a key" }));
    await waitFor(() =>
      expect(gateway.bodies["POST /api/v1/admin/agent-keys"]).toMatchObject({ key: "amk_made_by_the_agent", lifecycle: "permanent" }),
    );
  });

  it("registers a key by its SHA-256 alone, as a bridge logs it", async () => {
    const digest = "AB".repeat(32);
    renderUi(<AdminPage />);
    await userEvent.type(await screen.findByLabelText("Client-generated key (optional)"), digest);
    await userEvent.click(screen.getByRole("button", { name: "Issue a key" }));
    await waitFor(() =>
      expect(gateway.bodies["POST /api/v1/admin/agent-keys"]).toMatchObject({ key: null, key_sha256: digest.toLowerCase() }),
    );
  });

  it("issues a key when none is given, and shows it once", async () => {
    renderUi(<AdminPage />);
    await userEvent.click(await screen.findByRole("button", { name: "Issue a key" }));
    expect(await screen.findByText("amk_generated_once")).toBeInTheDocument();
    expect(gateway.bodies["POST /api/v1/admin/agent-keys"]).toMatchObject({ key: null });
  });
});
