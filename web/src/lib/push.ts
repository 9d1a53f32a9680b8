/**
 * Web Push on this device: the service worker (`/sw.js`), the browser's subscription
 * with the gateway's VAPID key, and its registration with the gateway. Loaded with the
 * Account page only; the in-tab Notification API (notifications.ts) stays the fallback.
 */
import { unwrap } from "@/api";
import { sdk } from "./sdk";
import { readPreference, writePreference } from "./storage";

/** The id the gateway gave this device's subscription: "this device" in the list. */
const THIS_DEVICE = "push-subscription";

export class PushDenied extends Error {}

export function pushSupported(): boolean {
  return (
    typeof navigator !== "undefined" &&
    "serviceWorker" in navigator &&
    typeof PushManager !== "undefined" &&
    typeof Notification !== "undefined"
  );
}

export function thisDevice(): string | null {
  return readPreference(THIS_DEVICE);
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function sameKey(subscription: PushSubscription, key: Uint8Array): boolean {
  const current = subscription.options.applicationServerKey;
  if (!current) return false;
  const bytes = new Uint8Array(current);
  return bytes.length === key.length && bytes.every((b, i) => b === key[i]);
}

export async function registerWorker(): Promise<ServiceWorkerRegistration> {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

/** Ask for permission, subscribe this browser and tell the gateway; the subscription's id. */
export async function enablePush(): Promise<string> {
  if ((await Notification.requestPermission()) !== "granted") throw new PushDenied();
  const registration = await registerWorker();
  const key = keyBytes((await unwrap(sdk.client.GET("/api/v1/me/push"))).public_key);
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameKey(subscription, key)) {
    await subscription.unsubscribe(); // made for another gateway key
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  const { endpoint, keys } = subscription.toJSON();
  const body = { endpoint: endpoint ?? "", keys: { p256dh: keys?.p256dh ?? "", auth: keys?.auth ?? "" } };
  const made = await unwrap(sdk.client.POST("/api/v1/me/push/subscriptions", { body }));
  writePreference(THIS_DEVICE, made.subscription_id);
  return made.subscription_id;
}

export async function listSubscriptions() {
  return (await unwrap(sdk.client.GET("/api/v1/me/push/subscriptions"))).subscriptions;
}

/** Revoke a subscription; this device's own is unsubscribed in the browser too. */
export async function revokeSubscription(subscriptionId: string): Promise<void> {
  await unwrap(
    sdk.client.DELETE("/api/v1/me/push/subscriptions/{subscription_id}", {
      params: { path: { subscription_id: subscriptionId } },
    }),
  );
  if (subscriptionId !== thisDevice()) return;
  writePreference(THIS_DEVICE, null);
  const registration = await navigator.serviceWorker.getRegistration("/");
  await (await registration?.pushManager.getSubscription())?.unsubscribe();
}
