/**
 * Outside addresses against the fake gateway (answering as
 * api/routes/external_addresses.py): added, then its code field; a wrong code and a
 * gateway without outbound mail said in plain words; verified; choices; removed
 * only after asking.
 */
import { screen, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { beforeEach, describe, expect, it } from "vitest";
import { fakeAccount, gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { OutsideAddresses } from "./OutsideAddresses";

const userEvent = userEventLib.setup({ delay: null });

beforeEach(() => installFakeGateway());

async function add(address: string) {
  await userEvent.type(await screen.findByLabelText("Address outside the gateway"), address);
  await userEvent.click(screen.getByRole("button", { name: "Add" }));
}

describe("outside addresses", () => {
  it("adds an address, then asks for the code mailed to it, and verifies it", async () => {
    renderUi(<OutsideAddresses />);
    expect(await screen.findByText("No outside address yet.")).toBeInTheDocument();
    await add("me@example.com");
    expect(await screen.findByText(/We mailed a code to me@example.com/)).toBeInTheDocument();
    expect(gateway.bodies["POST /api/v1/me/external-addresses"]).toEqual({ address: "me@example.com" });
    expect(screen.getByText("Not verified yet")).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("6-digit code"), "000000");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(/The code was not accepted.*30 minutes/);
    await userEvent.clear(screen.getByLabelText("6-digit code"));
    await userEvent.type(screen.getByLabelText("6-digit code"), "123456");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByText("Verified")).toBeInTheDocument();
    expect(screen.queryByLabelText("6-digit code")).toBeNull();
  });

  it("says in plain words when the gateway cannot mail a code", async () => {
    fakeAccount.outbound = false;
    renderUi(<OutsideAddresses />);
    await add("me@example.com");
    expect(await screen.findByRole("alert")).toHaveTextContent("This gateway sends no mail outside");
    expect(document.body.textContent).not.toContain("AGENTMAIL_SMARTHOST");
  });

  it("sends a new code, and switches what goes there", async () => {
    renderUi(<OutsideAddresses />);
    await add("me@example.com");
    await userEvent.click(await screen.findByRole("button", { name: "Send a new code" }));
    expect(await screen.findByText(/We mailed a new code to me@example.com/)).toBeInTheDocument();
    expect(gateway.calls).toContain("POST /api/v1/me/external-addresses/x1/code");
    await userEvent.click(screen.getByRole("checkbox", { name: "Other mail" }));
    expect(gateway.bodies["PATCH /api/v1/me/external-addresses/x1"]).toEqual({ other_mail: true });
    expect(await screen.findByRole("checkbox", { name: "Other mail" })).toBeChecked();
  });

  it("removes an address only after asking", async () => {
    renderUi(<OutsideAddresses />);
    await add("me@example.com");
    await userEvent.click(await screen.findByRole("button", { name: "Remove me@example.com" }));
    const dialog = await screen.findByRole("dialog", { name: "Remove me@example.com?" });
    expect(gateway.calls).not.toContain("DELETE /api/v1/me/external-addresses/x1");
    await userEvent.click(within(dialog).getByRole("button", { name: "Remove" }));
    expect(await screen.findByText("No outside address yet.")).toBeInTheDocument();
    expect(gateway.calls).toContain("DELETE /api/v1/me/external-addresses/x1");
  });

  it("speaks Chinese", async () => {
    renderUi(<OutsideAddresses />, { language: "zh" });
    expect(await screen.findByRole("heading", { name: "外部地址" })).toBeInTheDocument();
  });
});
