/**
 * The fake gateway's external addresses and webhooks, answering as
 * api/routes/external_addresses.py and webhooks.py do: a code is "mailed" only when
 * `outbound` is on (else 422 `invalid_request`), `123456` is the right code; a
 * webhook's secret is in the answer that made or rotated it; `/admin/webhooks`
 * answers as `/me/webhooks`.
 */
import type { ExternalAddress, Webhook } from "@/api";

type Json = (body: unknown, status?: number) => Response;

export const fakeAccount = {
  outbound: true,
  addresses: [] as ExternalAddress[],
  webhooks: [] as Webhook[],
};

export function resetFakeAccount(): void {
  fakeAccount.outbound = true;
  fakeAccount.addresses = [];
  fakeAccount.webhooks = [];
}

const address = (id: string, text: string): ExternalAddress => ({
  address_id: id, address: text, verified: false, verified_at: null, requests: true, other_mail: false, created_at: "2026-12-01T09:00:00Z",
});

const hook = (id: string, url: string, events: string[]): Webhook => ({
  webhook_id: id, url, events, description: "", owner: "jianf", scope: "own", enabled: true, failures: 0, disabled_reason: "", created_at: "2026-12-01T09:00:00Z",
});

function answerAddresses(method: string, path: string, body: unknown, json: Json): Response | null {
  const refuse = (status: number, code: string, message: string) => json({ error: { code, message } }, status);
  const noSmarthost = () => refuse(422, "invalid_request", "this gateway sends no mail outside (no smarthost, AGENTMAIL_SMARTHOST): no verification code can be mailed");
  if (path === "/api/v1/me/external-addresses") {
    if (method === "GET") return json({ addresses: fakeAccount.addresses });
    const text = (body as { address: string }).address;
    if (!fakeAccount.outbound) return noSmarthost();
    if (fakeAccount.addresses.length >= 5) return refuse(422, "limit_reached", "at most 5 external addresses each: delete one first");
    const made = address(`x${fakeAccount.addresses.length + 1}`, text);
    fakeAccount.addresses.push(made);
    return json(made, 201);
  }
  const one = /^\/api\/v1\/me\/external-addresses\/([^/]+)(?:\/(verify|code))?$/.exec(path);
  const found = one ? fakeAccount.addresses.find((a) => a.address_id === one[1]) : undefined;
  if (!one) return null;
  if (!found) return refuse(404, "not_found", "no such external address");
  if (method === "DELETE") {
    fakeAccount.addresses = fakeAccount.addresses.filter((a) => a !== found);
    return json({ status: "deleted" });
  }
  if (method === "PATCH") {
    Object.assign(found, body);
    return json(found);
  }
  if (one[2] === "code") return fakeAccount.outbound ? json(found) : noSmarthost();
  if ((body as { code: string }).code !== "123456") return refuse(422, "invalid_request", "wrong code (4 tries left)");
  Object.assign(found, { verified: true, verified_at: "2026-12-01T09:05:00Z" });
  return json(found);
}

function answerWebhooks(method: string, path: string, body: unknown, json: Json): Response | null {
  const match = /^\/api\/v1\/(?:me|admin)\/webhooks(?:\/([^/]+)(?:\/([a-z-]+))?)?$/.exec(path);
  if (!match) return null;
  const [, id, action] = match;
  if (!id) {
    if (method === "GET") return json({ webhooks: fakeAccount.webhooks });
    const { url, events } = body as { url: string; events: string[] };
    if (!url.startsWith("https://")) {
      return json({ error: { code: "invalid_request", message: "webhook endpoint refused: an https URL is needed", fields: [{ field: "url", code: "invalid" }] } }, 422);
    }
    const made = hook(`w${fakeAccount.webhooks.length + 1}`, url, events);
    fakeAccount.webhooks.push(made);
    return json({ ...made, secret: "whsec_first" }, 201);
  }
  const found = fakeAccount.webhooks.find((w) => w.webhook_id === id);
  if (!found) return json({ error: { code: "not_found", message: "no such webhook endpoint" } }, 404);
  if (method === "DELETE") {
    fakeAccount.webhooks = fakeAccount.webhooks.filter((w) => w !== found);
    return json({ status: "deleted" });
  }
  switch (action) {
    case "enable":
      Object.assign(found, { enabled: true, failures: 0, disabled_reason: "" });
      return json(found);
    case "rotate-secret":
      return json({ ...found, secret: "whsec_rotated" });
    case "deliveries":
      return json({
        deliveries: [
          { delivery_id: 7, event_id: 41, event_type: "mail.received", state: "failed", attempts: 8, next_attempt_at: null, last_status: 500, last_error: "HTTP 500", created_at: "2026-12-01T09:00:00Z", finished_at: "2026-12-01T10:00:00Z" },
        ],
      });
    case "replay":
      return json({ delivery_id: 8, event_id: 41, event_type: "mail.received", state: "pending", attempts: 0, next_attempt_at: null, last_status: null, last_error: "", created_at: "2026-12-01T11:00:00Z", finished_at: null }, 202);
  }
  return json(found);
}

export function answerAccount(method: string, path: string, body: unknown, json: Json): Response | null {
  return answerAddresses(method, path, body, json) ?? answerWebhooks(method, path, body, json);
}
