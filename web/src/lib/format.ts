/** Sizes, times and addresses as the user reads them. */
export function formatSize(bytes: number, language = "en"): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${new Intl.NumberFormat(language, { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}

export function formatTime(iso: string, language = "en", now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const sameDay = date.toDateString() === now.toDateString();
  return new Intl.DateTimeFormat(language, sameDay ? { timeStyle: "short" } : { dateStyle: "medium" }).format(date);
}

export function formatDateTime(iso: string, language = "en"): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/** How the API writes an address outside the gateway (imported mail): `mailto:bob@example.com`. */
const OUTSIDE = "mailto:";

/** Whether an address is outside the gateway: nobody logs in as it and no mail reaches it. */
export function isOutside(address: string): boolean {
  return address.toLowerCase().startsWith(OUTSIDE);
}

/**
 * `builder@ModelRouter.fix-leak` → `builder`: the name part, for compact lists.
 * An outside address is its whole mail address (`mailto:bob@example.com` → `bob@example.com`).
 */
export function addressName(address: string): string {
  if (isOutside(address)) return address.slice(OUTSIDE.length);
  const at = address.indexOf("@");
  return at > 0 ? address.slice(0, at) : address;
}

/** Seconds left as `1:05:09` / `4:09`; never negative. */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}
