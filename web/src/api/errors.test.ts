// @vitest-environment node
import { describe, expect, it, vi } from "vitest";
import { createApiClient, unwrap } from "./client";
import { ApiError, isApiErrorBody, toApiError } from "./errors";
import { createSdk } from "./sdk";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

describe("toApiError", () => {
  it("keeps the API's code and message", () => {
    const error = toApiError(422, { error: { code: "unknown_alias", message: "no conversation has the alias fix-leak" } });
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(422);
    expect(error.code).toBe("unknown_alias");
    expect(error.message).toBe("no conversation has the alias fix-leak");
  });

  it("parses the error from text too", () => {
    const error = toApiError(429, '{"error":{"code":"budget_exhausted","message":"the budget is used up"}}');
    expect(error.code).toBe("budget_exhausted");
  });

  it.each([
    [502, "<html>Bad Gateway</html>", "http_502", "<html>Bad Gateway</html>"],
    [500, undefined, "http_500", "HTTP 500"],
    [404, { detail: "Not Found" }, "http_404", "HTTP 404"],
    [400, { error: "flat string" }, "http_400", "HTTP 400"],
    [0, "", "network_error", "HTTP 0"],
  ])("falls back for a %i that is not the API's shape", (status, body, code, message) => {
    const error = toApiError(status, body);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });

  it("keeps the inputs a refusal names, and only well-formed ones", () => {
    const error = toApiError(422, {
      error: {
        code: "invalid_request",
        message: "subject: String should have at most 998 characters",
        fields: [
          { field: "subject", code: "too_long", limit: 998 },
          { field: "to", code: "missing" },
          { field: "cc.1", code: "a_word_from_a_newer_gateway" },
          { field: 3, code: "missing" },
          "subject",
        ],
      },
    });
    expect(error.fields).toEqual([
      { field: "subject", code: "too_long", limit: 998 },
      { field: "to", code: "missing" },
      { field: "cc.1", code: "invalid" },
    ]);
    expect(error.field("to")).toEqual({ field: "to", code: "missing" });
    expect(error.field("body")).toBeUndefined();
    expect(toApiError(401, { error: { code: "unauthorized", message: "x", fields: "nope" } }).fields).toEqual([]);
    expect(toApiError(404, { error: { code: "not_found", message: "x" } }).fields).toEqual([]);
    const text = '{"error":{"code":"unauthorized","message":"x","fields":[{"field":"current_password","code":"wrong"}]}}';
    expect(toApiError(401, text).field("current_password")?.code).toBe("wrong");
  });

  it("recognises only the documented shape", () => {
    expect(isApiErrorBody({ error: { code: "x", message: "y" } })).toBe(true);
    expect(isApiErrorBody({ error: { code: "x" } })).toBe(false);
    expect(isApiErrorBody(null)).toBe(false);
  });
});

describe("unwrap with the typed client", () => {
  it("resolves to the data of a 200", async () => {
    const fetch = vi.fn(async () => json(200, { status: "ok", version: "0.1.0" }));
    const client = createApiClient({ fetch, baseUrl: "http://gw.test" });
    await expect(unwrap(client.GET("/api/v1/health"))).resolves.toEqual({ status: "ok", version: "0.1.0" });
  });

  it("rejects with the API's error", async () => {
    const fetch = vi.fn(async () => json(409, { error: { code: "already_decided", message: "decided already" } }));
    const sdk = createSdk({ fetch, baseUrl: "http://gw.test" });
    const failure = sdk.decide("m1", "approve");
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toMatchObject({ status: 409, code: "already_decided", message: "decided already" });
  });

  it("turns a network failure into network_error", async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    });
    await expect(createSdk({ fetch, baseUrl: "http://gw.test" }).me()).rejects.toMatchObject({ status: 0, code: "network_error" });
  });

  it("sends same-origin credentials and JSON bodies to the documented path", async () => {
    const fetch = vi.fn(async (_request: Request) => json(200, { user: { name: "jianf" } }));
    await createSdk({ fetch, baseUrl: "http://gw.test" }).login("jianf", "secret");
    const request = fetch.mock.calls[0]?.[0];
    expect(request?.url).toBe("http://gw.test/api/v1/auth/login");
    expect(request?.method).toBe("POST");
    expect(request?.credentials).toBe("same-origin");
    expect(await request?.json()).toEqual({ username: "jianf", password: "secret" });
  });
});
