/**
 * The Account page's push notifications against the fake gateway: the devices listed
 * by browser and system with their push service, one revoked by its button; a browser without the Push API
 * is told so instead of offered a button that cannot work (jsdom has none).
 */
import { screen } from "@testing-library/react";
import userEventLib from "@testing-library/user-event";
import { beforeEach, expect, it } from "vitest";
import { gateway, installFakeGateway } from "@/test/fakeGateway";
import { renderUi } from "@/test/render";
import { PushSection } from "./PushSection";

const userEvent = userEventLib.setup({ delay: null });

beforeEach(() => installFakeGateway());

it("lists the subscribed devices and revokes one", async () => {
  renderUi(<PushSection />);
  // Named as a person knows the device, not by its raw User-Agent (kept as the tooltip).
  expect(await screen.findByRole("button", { name: /^Revoke\s*Chrome on Android$/ })).toBeInTheDocument();
  expect(screen.getByTitle(/Pixel 9/)).toHaveTextContent(/^Chrome on Android/);
  expect(screen.getByText(/fcm\.googleapis\.com/)).toBeInTheDocument();
  await userEvent.click(screen.getByRole("button", { name: /^Revoke/ }));
  expect(gateway.calls).toContain("DELETE /api/v1/me/push/subscriptions/p1");
});

it("says when the browser cannot receive pushes", async () => {
  renderUi(<PushSection />);
  expect(await screen.findByText(/cannot receive push notifications/)).toBeInTheDocument();
  expect(screen.queryByRole("button", { name: "Enable on this device" })).toBeNull();
});
