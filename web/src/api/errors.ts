import type { components } from "./schema";

/** One input a refusal is about: `{field, code, limit?}` (docs/api.md § Errors, "Which inputs"). */
export type FieldError = components["schemas"]["FieldError"];
export type FieldCode = FieldError["code"];

/** The gateway's error shape: `{"error": {"code", "message", "fields"?}}` (docs/api.md § Errors). */
export interface ApiErrorBody {
  error: { code: string; message: string; fields?: unknown };
}

/**
 * A refused request: the HTTP status, the API's stable `code`, the inputs it is
 * about (`fields`), and its `message` — English for developers, never shown to a
 * person as it is (the UI says it from `code` and `fields`: src/lib/errorText.ts).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Seconds to wait before trying again (`Retry-After` of a 429 or 503), when the answer said. */
  readonly retryAfter: number | null;
  readonly fields: readonly FieldError[];

  constructor(
    status: number,
    code: string,
    message: string,
    retryAfter: number | null = null,
    fields: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    this.fields = fields;
  }

  /** The problem with `field` (a dotted name: `subject`, `cc.1`), if the refusal names it. */
  field(name: string): FieldError | undefined {
    return this.fields.find((problem) => problem.field === name);
  }
}

/**
 * `Retry-After` in seconds: the delay-seconds form, or an HTTP date (RFC 9110 §10.2.3);
 * null when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number.parseInt(text, 10);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function isApiErrorBody(value: unknown): value is ApiErrorBody {
  if (!isRecord(value) || !isRecord(value.error)) return false;
  return typeof value.error.code === "string" && typeof value.error.message === "string";
}

const FIELD_CODES: ReadonlySet<string> = new Set<FieldCode>([
  "missing", "too_long", "too_short", "too_large", "too_small", "format", "type",
  "choice", "unknown", "invalid", "wrong", "taken", "reserved",
]);

/** The well-formed entries of `fields` (a word this client does not know reads as `invalid`). */
export function readFields(value: unknown): FieldError[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown): FieldError[] => {
    if (!isRecord(item) || typeof item.field !== "string" || typeof item.code !== "string") return [];
    const code: FieldCode = FIELD_CODES.has(item.code) ? (item.code as FieldCode) : "invalid";
    return typeof item.limit === "number" && Number.isFinite(item.limit)
      ? [{ field: item.field, code, limit: item.limit }]
      : [{ field: item.field, code }];
  });
}

function fromBody(status: number, body: ApiErrorBody, retryAfter: number | null): ApiError {
  return new ApiError(status, body.error.code, body.error.message, retryAfter, readFields(body.error.fields));
}

/**
 * An `ApiError` from whatever came back: the API's JSON error, or — from a proxy,
 * a network failure page or a bug — anything else, with a code derived from the status.
 */
export function toApiError(status: number, body: unknown, retryAfter: number | null = null): ApiError {
  if (isApiErrorBody(body)) return fromBody(status, body, retryAfter);
  if (typeof body === "string") {
    try {
      const parsed: unknown = JSON.parse(body);
      if (isApiErrorBody(parsed)) return fromBody(status, parsed, retryAfter);
    } catch {
      // not JSON: fall through
    }
  }
  const text = typeof body === "string" && body.trim() ? body.trim().slice(0, 200) : "";
  return new ApiError(
    status,
    status === 0 ? "network_error" : `http_${status}`,
    text || `HTTP ${status}`,
    retryAfter,
  );
}
