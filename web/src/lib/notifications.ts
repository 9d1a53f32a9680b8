/**
 * Desktop notifications for permission requests: off until the user turns
 * them on with a click (the browser's prompt is never shown on load).
 */
import { readPreference, writePreference } from "./storage";

const KEY = "notify";

export const notificationsSupported = () => typeof Notification !== "undefined";

export function notificationsOn(): boolean {
  return notificationsSupported() && Notification.permission === "granted" && readPreference(KEY) === "on";
}

export async function enableNotifications(): Promise<boolean> {
  if (!notificationsSupported()) return false;
  const permission = await Notification.requestPermission();
  writePreference(KEY, permission === "granted" ? "on" : null);
  return permission === "granted";
}

export function disableNotifications(): void {
  writePreference(KEY, null);
}

/** `tag`: the service worker's push of the same request uses it too (`agentmail-<mail id>`),
 * so a browser that gets both shows one notification. */
export function notify(title: string, body: string, onClick: () => void, tag = `agentmail-${title}`): void {
  if (!notificationsOn() || document.visibilityState === "visible") return;
  const notification = new Notification(title, { body, tag });
  notification.onclick = () => {
    window.focus();
    onClick();
    notification.close();
  };
}
