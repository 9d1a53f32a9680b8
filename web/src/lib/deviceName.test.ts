import { describe, expect, it } from "vitest";
import { deviceOf } from "./deviceName";

// Real User-Agent strings of current browsers.
const CASES: [string, ReturnType<typeof deviceOf>][] = [
  ["Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0", { browser: "Firefox", system: "Linux" }],
  ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36", { browser: "Chrome", system: "Linux" }],
  ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36 Edg/141.0.0.0", { browser: "Edge", system: "Windows" }],
  ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Safari/605.1.15", { browser: "Safari", system: "macOS" }],
  ["Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1", { browser: "Safari", system: "iPhone" }],
  ["Mozilla/5.0 (iPad; CPU OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/141.0.0.0 Mobile/15E148 Safari/604.1", { browser: "Chrome", system: "iPad" }],
  ["Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Mobile Safari/537.36", { browser: "Chrome", system: "Android" }],
  ["Mozilla/5.0 (Linux; Android 14; SM-S928B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/28.0 Chrome/130.0.0.0 Mobile Safari/537.36", { browser: "Samsung Internet", system: "Android" }],
  ["Mozilla/5.0 (X11; CrOS x86_64 16181.61.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36", { browser: "Chrome", system: "ChromeOS" }],
  ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36 OPR/122.0.0.0", { browser: "Opera", system: "Windows" }],
  ["Firefox 140", null], // no version after a slash: not a User-Agent, shown as it is
  ["Mozilla/5.0 (Mobile; rv:140.0) Gecko/140.0 Firefox/140.0", { browser: "Firefox", system: null }],
  ["curl/8.14.1", null],
  ["", null],
];

describe("deviceOf", () => {
  it.each(CASES)("%s", (userAgent, expected) => {
    expect(deviceOf(userAgent)).toEqual(expected);
  });
});
