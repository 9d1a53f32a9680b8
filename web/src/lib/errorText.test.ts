// @vitest-environment node
/**
 * Every refusal the API can give is said in the user's language, from its code
 * and the inputs it names, never in the words of the library that found it.
 */
import i18next, { type TFunction } from "i18next";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError, type FieldCode, type FieldError } from "@/api";
import en from "@/locales/en.json";
import zh from "@/locales/zh.json";
import { byteSize, errorText, fieldText } from "./errorText";

/** Pydantic's and the gateway's English, which must never reach a person as it is. */
const LIBRARY_PHRASES = [
  "String should have",
  "should have at least",
  "should have at most",
  "Field required",
  "Input should be",
  "List should have",
  "Value error",
  "String should match pattern",
  "unable to parse",
  "Extra inputs are not permitted",
  "valid integer",
  "valid string",
  "wrong user name or password",
  "request body over",
];

// Every code docs/api.md § Errors lists, and the client's own (network_error, http_502).
const CODES = [
  "bad_request", "malformed_json", "unauthorized", "forbidden", "csrf_origin", "not_found",
  "method_not_allowed", "request_timeout", "name_taken", "already_decided", "workspace_conflict",
  "draft_changed", "payload_too_large", "unsupported_media_type", "invalid_request", "invalid_address", "outbound_not_allowed",
  "unknown_recipient", "unknown_workspace", "unknown_alias", "auto_not_allowed", "hop_limit_reached",
  "idempotency_key_reused", "limit_reached", "invalid_decision", "budget_exhausted", "rate_limited",
  "internal_error", "storage_full", "too_many_connections", "shutting_down", "network_error", "http_502",
];
const FIELD_CODES: FieldCode[] = [
  "missing", "too_long", "too_short", "too_large", "too_small", "format", "type", "choice",
  "unknown", "invalid", "wrong", "taken", "reserved",
];

const translators: Record<"en" | "zh", TFunction> = {} as Record<"en" | "zh", TFunction>;

beforeAll(async () => {
  for (const language of ["en", "zh"] as const) {
    const instance = i18next.createInstance();
    const resources = { en: { translation: en }, zh: { translation: zh } };
    await instance.init({ resources, lng: language, fallbackLng: false, interpolation: { escapeValue: false } });
    translators[language] = instance.t;
  }
});

const refused = (status: number, code: string, fields: FieldError[] = [], retryAfter: number | null = null) =>
  new ApiError(status, code, "String should have at most 998 characters; Field required", retryAfter, fields);

function clean(text: string): void {
  for (const phrase of LIBRARY_PHRASES) expect(text).not.toContain(phrase);
  expect(text).not.toMatch(/errors\.|\{\{/); // no key or placeholder shows through
  expect(text.trim().length).toBeGreaterThan(3);
}

describe("errorText", () => {
  it.each(["en", "zh"] as const)("says every code in %s without the message it came with", (language) => {
    const t = translators[language];
    const said = new Set<string>();
    for (const code of CODES) {
      const text = errorText(refused(code === "http_502" ? 502 : 400, code), t);
      clean(text);
      said.add(text);
    }
    expect(said.size).toBeGreaterThan(20); // not one sentence for everything
  });

  it.each(["en", "zh"] as const)("says every kind of field problem in %s, with and without a limit", (language) => {
    const t = translators[language];
    for (const code of FIELD_CODES) {
      for (const field of ["subject", "cc.2", "password", "some_new_field"]) {
        clean(fieldText({ field, code }, t));
        clean(fieldText({ field, code, limit: 998 }, t));
      }
    }
  });

  it("names the input and its limit", () => {
    const en = translators.en;
    const subject = refused(422, "invalid_request", [{ field: "subject", code: "too_long", limit: 998 }]);
    expect(errorText(subject, en)).toBe("Subject: at most 998 characters.");
    expect(errorText(subject, translators.zh)).toBe("主题：最多 998 个字符。");
    const password = refused(422, "invalid_request", [{ field: "password", code: "too_short", limit: 8 }]);
    expect(errorText(password, en)).toBe("Password: at least 8 characters.");
    const cc = refused(422, "invalid_request", [{ field: "cc", code: "too_long", limit: 50 }]);
    expect(errorText(cc, en)).toBe("Cc: at most 50.");
    const limit = refused(422, "invalid_request", [{ field: "budget_limit", code: "invalid" }]);
    expect(errorText(limit, en)).toBe("A budget is a number from 1 to 1,000,000, or “unlimited”.");
    const two = refused(422, "invalid_request", [{ field: "to", code: "missing" }, { field: "subject", code: "format" }]);
    expect(errorText(two, en)).toBe("To: required. A subject is one line.");
  });

  it("says an upload's limit in MiB", () => {
    const file = refused(413, "payload_too_large", [{ field: "file", code: "too_long", limit: 25 * 1024 * 1024 }]);
    expect(errorText(file, translators.en)).toBe("File: at most 25 MiB.");
    expect(errorText(file, translators.zh)).toBe("文件：最大 25 MiB。");
    expect(byteSize(1536)).toBe("2 KiB");
    expect(byteSize(900)).toBe("900 bytes");
  });

  it("tells a wrong current password from a login that ended", () => {
    const en = translators.en;
    expect(errorText(refused(401, "unauthorized", [{ field: "current_password", code: "wrong" }]), en)).toBe(
      "The current password is wrong.",
    );
    expect(errorText(refused(401, "unauthorized"), en)).toBe("Your sign-in has ended. Sign in again.");
    expect(errorText(refused(401, "unauthorized"), en, { codes: { unauthorized: "Wrong user name or password." } })).toBe(
      "Wrong user name or password.",
    );
  });

  it("says how long a throttle lasts when the answer said", () => {
    expect(errorText(refused(429, "rate_limited", [], 30), translators.en)).toBe("Too many attempts. Try again in 30 seconds.");
    expect(errorText(refused(429, "rate_limited", [], 1), translators.en)).toBe("Too many attempts. Try again in 1 second.");
    expect(errorText(refused(429, "rate_limited"), translators.zh)).toBe("尝试次数过多，请稍后再试。");
  });

  it("takes a place's own words for a named input before the general ones", () => {
    const taken = refused(409, "name_taken", [{ field: "name", code: "taken" }]);
    expect(errorText(taken, translators.en)).toBe("Name: taken. Choose another.");
    expect(errorText(taken, translators.en, { fields: { "name.taken": () => "You have a folder of this name already." } })).toBe(
      "You have a folder of this name already.",
    );
  });

  it("never shows a bug's own text", () => {
    expect(errorText(new TypeError("Cannot read properties of undefined (reading 'x')"), translators.en)).toBe("Something went wrong.");
    expect(errorText(refused(0, "network_error"), translators.zh)).toBe("无法连接网关。请检查网络，我们会自动重试。");
    expect(errorText(refused(418, "http_418"), translators.en)).toBe("The gateway, or a proxy in front of it, refused this (HTTP 418).");
  });
});
