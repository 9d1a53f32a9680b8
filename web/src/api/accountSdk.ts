/**
 * The SDK's calls for mail beyond the gateway and webhooks: my external addresses
 * (`/me/external-addresses`) and webhooks, mine (`/me/webhooks`) or, for an admin,
 * everyone's (`/admin/webhooks`: the same operations, api/routes/webhooks.py).
 */
import { unwrap, type ApiClient } from "./client";
import type { WebhookEvent } from "./types";

/** Whose webhooks: mine, or (an admin's) the ones that hear everyone's events. */
export type WebhookScope = "me" | "admin";

export function externalAddressCalls(client: ApiClient) {
  const id = (address_id: string) => ({ params: { path: { address_id } } });
  return {
    externalAddresses: () => unwrap(client.GET("/api/v1/me/external-addresses")),
    addExternalAddress: (address: string) =>
      unwrap(client.POST("/api/v1/me/external-addresses", { body: { address } })),
    changeExternalAddress: (address_id: string, body: { requests?: boolean; other_mail?: boolean }) =>
      unwrap(client.PATCH("/api/v1/me/external-addresses/{address_id}", { ...id(address_id), body })),
    verifyExternalAddress: (address_id: string, code: string) =>
      unwrap(client.POST("/api/v1/me/external-addresses/{address_id}/verify", { ...id(address_id), body: { code } })),
    resendCode: (address_id: string) =>
      unwrap(client.POST("/api/v1/me/external-addresses/{address_id}/code", id(address_id))),
    deleteExternalAddress: (address_id: string) =>
      unwrap(client.DELETE("/api/v1/me/external-addresses/{address_id}", id(address_id))),
  };
}

export function webhookCalls(client: ApiClient, scope: WebhookScope) {
  // The admin's paths answer as mine do (one route factory): typed once, as mine.
  const root = `/api/v1/${scope}/webhooks` as "/api/v1/me/webhooks";
  const one = `${root}/{webhook_id}` as "/api/v1/me/webhooks/{webhook_id}";
  const id = (webhook_id: string) => ({ params: { path: { webhook_id } } });
  return {
    list: () => unwrap(client.GET(root)),
    create: (url: string, events: WebhookEvent[], description = "") =>
      unwrap(client.POST(root, { body: { url, events, description } })),
    remove: (webhook_id: string) => unwrap(client.DELETE(one, id(webhook_id))),
    enable: (webhook_id: string) =>
      unwrap(client.POST(`${one}/enable` as "/api/v1/me/webhooks/{webhook_id}/enable", id(webhook_id))),
    rotateSecret: (webhook_id: string) =>
      unwrap(client.POST(`${one}/rotate-secret` as "/api/v1/me/webhooks/{webhook_id}/rotate-secret", id(webhook_id))),
    deliveries: (webhook_id: string, limit = 10) =>
      unwrap(
        client.GET(`${one}/deliveries` as "/api/v1/me/webhooks/{webhook_id}/deliveries", {
          params: { path: { webhook_id }, query: { limit } },
        }),
      ),
    replay: (webhook_id: string, event_id: number) =>
      unwrap(
        client.POST(`${one}/replay` as "/api/v1/me/webhooks/{webhook_id}/replay", { ...id(webhook_id), body: { event_id } }),
      ),
  };
}

export type WebhookCalls = ReturnType<typeof webhookCalls>;
