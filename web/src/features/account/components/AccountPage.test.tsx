/**
 * The Account page against the fake gateway (answers as api/routes/account.py
 * does): mail-client settings with copy buttons, the test mail to myself, and
 * the password change with each of the API's refusals where it belongs.
 */
import { screen, within } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CURRENT_PASSWORD, gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { AccountPage } from "./AccountPage";

const userEvent = userEventLib.setup({ delay: null });
const me = { user_id: "u1", name: "jianf", address: "jianf@", email: "jianf@agentmail.localhost", is_admin: false, created_at: "" };

beforeEach(() => installFakeGateway());
afterEach(() => vi.unstubAllGlobals());

const renderPage = () => renderUi(<AccountPage me={me} onLogout={() => {}} />);

describe("the mail client settings", () => {
  it("shows the IMAP and SMTP servers, the user name and the address from /me/mail-settings", async () => {
    renderPage();
    const imap = await screen.findByRole("region", { name: "Incoming mail (IMAP)" });
    expect(imap).toHaveTextContent("mail.example.org");
    expect(imap).toHaveTextContent("993");
    expect(imap).toHaveTextContent("SSL/TLS");
    expect(imap).toHaveTextContent("143 (STARTTLS)");
    const smtp = screen.getByRole("region", { name: "Outgoing mail (SMTP)" });
    expect(smtp).toHaveTextContent("465");
    expect(smtp).toHaveTextContent("587 (STARTTLS)");
    expect(screen.getByText("jianf@agentmail.localhost")).toBeInTheDocument();
    expect(gateway.calls).toContain("GET /api/v1/me/mail-settings");
  });

  it("copies a value with its copy button", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText } });
    renderPage();
    const imap = await screen.findByRole("region", { name: "Incoming mail (IMAP)" });
    await userEvent.click(within(imap).getByRole("button", { name: "Copy Incoming mail (IMAP) Port" }));
    expect(writeText).toHaveBeenCalledWith("993");
    expect(await within(imap).findByText("Copied")).toBeInTheDocument();
  });

  it("sends a test mail to myself through the send API and says so", async () => {
    renderPage();
    await userEvent.click(await screen.findByRole("button", { name: "Send a test mail to yourself" }));
    expect(await screen.findByText(/Sent to jianf@/)).toBeInTheDocument();
    expect(gateway.bodies["POST /api/v1/me/mail/send"]).toMatchObject({ to: "jianf@", subject: "AgentMail test mail" });
  });
});

describe("the password change", () => {
  async function fill(current: string, next: string, confirm = next) {
    await userEvent.type(await screen.findByLabelText("Current password"), current);
    await userEvent.type(screen.getByLabelText("New password"), next);
    await userEvent.type(screen.getByLabelText("New password again"), confirm);
    await userEvent.click(screen.getByRole("button", { name: "Change password" }));
  }

  it("changes it and clears the form", async () => {
    renderPage();
    await fill(CURRENT_PASSWORD, "a-longer-secret");
    expect(await screen.findByText("Password changed. Your other web logins were signed out.")).toHaveAttribute("role", "status");
    expect(gateway.bodies["POST /api/v1/me/password"]).toEqual({ current_password: CURRENT_PASSWORD, new_password: "a-longer-secret" });
    expect(screen.getByLabelText("Current password")).toHaveValue("");
  });

  it("says a too-short new password under the new password, before asking the server", async () => {
    renderPage();
    await fill(CURRENT_PASSWORD, "short");
    const message = await screen.findByText("New password: at least 8 characters.");
    expect(screen.getByLabelText("New password")).toHaveAttribute("aria-describedby", expect.stringContaining(message.id));
    expect(screen.getByLabelText("New password")).toHaveAccessibleDescription("At least 8 characters. New password: at least 8 characters.");
    expect(gateway.calls).not.toContain("POST /api/v1/me/password");
  });

  it("says a wrong current password under the current password", async () => {
    renderPage();
    await fill("not-my-password", "a-longer-secret");
    const message = await screen.findByText("The current password is wrong.");
    expect(screen.getByLabelText("Current password")).toHaveAttribute("aria-describedby", message.id);
  });

  it("tells a login that ended apart from a wrong current password", async () => {
    renderPage();
    await screen.findByLabelText("Current password");
    gateway.signedIn = false; // the login ended elsewhere: a 401 that names no field
    await fill(CURRENT_PASSWORD, "a-longer-secret");
    expect(await screen.findByRole("alert")).toHaveTextContent("Your sign-in has ended. Sign in again.");
    expect(screen.getByLabelText("Current password")).not.toHaveAttribute("aria-describedby");
  });

  it("says when it is throttled, and waits out Retry-After before trying again", async () => {
    gateway.failedPasswords = 5;
    renderPage();
    await fill("not-my-password", "a-longer-secret");
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again later.");
    const button = screen.getByRole("button", { name: /Try again in \d+ s/ });
    expect(button).toBeDisabled();
    // Counting down from Retry-After (60), however slow this machine is.
    const seconds = Number(/(\d+) s/.exec(button.textContent ?? "")?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
  });

  it("catches two different new passwords before asking the server", async () => {
    renderPage();
    await fill(CURRENT_PASSWORD, "a-longer-secret", "another-secret");
    expect(await screen.findByText("The two new passwords differ.")).toBeInTheDocument();
    expect(gateway.calls).not.toContain("POST /api/v1/me/password");
  });
});
