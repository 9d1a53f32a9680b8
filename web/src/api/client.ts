/** The typed HTTP client: openapi-fetch over the generated paths, same-origin credentials. */
import createClient, { type Client } from "openapi-fetch";
import { ApiError, parseRetryAfter, toApiError } from "./errors";
import type { paths } from "./schema";

export type ApiClient = Client<paths>;

export interface ClientOptions {
  /** Origin of the gateway; empty (the default) is same-origin, as in production. */
  baseUrl?: string;
  /** Replaces fetch (tests, other runtimes); it gets the built Request. */
  fetch?: (request: Request) => Promise<Response>;
}

export function createApiClient(options: ClientOptions = {}): ApiClient {
  return createClient<paths>({
    baseUrl: options.baseUrl ?? "",
    // The web login is an HttpOnly cookie: send it, but only to our own origin.
    credentials: "same-origin",
    // Resolved at call time, so tests can replace globalThis.fetch.
    fetch: options.fetch ?? ((input: Request) => globalThis.fetch(input)),
  });
}

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an `ApiError` carrying the API's `{error: {code, message}}`. */
export async function unwrap<T>(request: Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await request;
  } catch (cause) {
    if (cause instanceof ApiError) throw cause;
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new ApiError(0, "network_error", message);
  }
  const { data, error, response } = outcome;
  if (!response.ok || data === undefined) {
    throw toApiError(response.status, error, parseRetryAfter(response.headers.get("Retry-After")));
  }
  return data;
}
