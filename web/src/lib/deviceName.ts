/**
 * A subscribed device named as a person knows it — "Firefox on Linux" — from the
 * User-Agent its browser sent when it subscribed. A dozen patterns, not a User-Agent
 * library: a label is all this is for, and the libraries are large (Bowser) or AGPL
 * (ua-parser-js 2). A string none of them matches is shown as it is.
 */

// Order matters: Edge, Opera and Samsung Internet also say "Chrome", and every
// Chromium browser also says "Safari".
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, "Chrome"],
  [/\bSafari\//, "Safari"],
];

// Android says "Linux", an iPhone "like Mac OS X", ChromeOS "Linux" too: the specific first.
const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/\bAndroid\b/, "Android"],
  [/\biPhone\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bWindows\b/, "Windows"],
  [/\bLinux\b/, "Linux"],
];

export interface Device {
  browser: string;
  system: string | null;
}

/** The browser and system a User-Agent names; null when it names no browser we know. */
export function deviceOf(userAgent: string): Device | null {
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser === undefined) return null;
  return { browser, system: SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null };
}
