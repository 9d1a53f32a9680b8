/** The gateway's error shape: `{"error": {"code", "message"}}` (docs/api.md § Errors). */
export interface ApiErrorBody {
  error: { code: string; message: string };
}

/** A refused request: the HTTP status and the API's stable `code` and human `message`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Seconds to wait before trying again (`Retry-After` of a 429 or 503), when the answer said. */
  readonly retryAfter: number | null;

  constructor(status: number, code: string, message: string, retryAfter: number | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
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

/**
 * An `ApiError` from whatever came back: the API's JSON error, or — from a proxy,
 * a network failure page or a bug — anything else, with a code derived from the status.
 */
export function toApiError(status: number, body: unknown, retryAfter: number | null = null): ApiError {
  if (isApiErrorBody(body)) return new ApiError(status, body.error.code, body.error.message, retryAfter);
  if (typeof body === "string") {
    try {
      const parsed: unknown = JSON.parse(body);
      if (isApiErrorBody(parsed)) {
        return new ApiError(status, parsed.error.code, parsed.error.message, retryAfter);
      }
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
