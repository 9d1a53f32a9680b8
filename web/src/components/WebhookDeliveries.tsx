/**
 * A webhook's last deliveries (newest first): the event, its state, the receiver's
 * last answer; each can be sent again ("Replay": a new delivery of the same event).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { WebhookDelivery, WebhookScope } from "@/api";
import { formatDateTime } from "@/lib/format";
import { sdk } from "@/lib/sdk";
import { Button } from "./Button";
import { ErrorNote } from "./ErrorNote";

/** How many of the last deliveries are shown. */
const SHOWN = 10;

const key = (scope: WebhookScope, id: string) => ["webhooks", scope, id, "deliveries"] as const;

export function WebhookDeliveries({ scope, webhookId }: { scope: WebhookScope; webhookId: string }) {
  const { t, i18n } = useTranslation();
  const calls = sdk.webhooks(scope);
  const queryClient = useQueryClient();
  const deliveries = useQuery({
    queryKey: key(scope, webhookId),
    queryFn: async () => (await calls.deliveries(webhookId, SHOWN)).deliveries,
  });
  const replay = useMutation({
    mutationFn: (eventId: number) => calls.replay(webhookId, eventId),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key(scope, webhookId) }),
  });
  const state = (delivery: WebhookDelivery) =>
    delivery.state === "delivered"
      ? t("webhooks.state.delivered")
      : delivery.state === "failed"
        ? t("webhooks.state.failed")
        : t("webhooks.state.pending");
  if (deliveries.isError) return <ErrorNote error={deliveries.error} />;
  const list = deliveries.data ?? [];
  return (
    <div className="flex flex-col gap-2 rounded-md border border-line p-2">
      <h3 className="text-sm font-medium">{t("webhooks.deliveries", { max: SHOWN })}</h3>
      {deliveries.isSuccess && list.length === 0 ? <p className="text-muted">{t("webhooks.noDeliveries")}</p> : null}
      <ul className="flex flex-col divide-y divide-line">
        {list.map((delivery) => (
          <li key={delivery.delivery_id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-1.5">
            <span className="min-w-0 flex-1">
              <span className="font-mono">{delivery.event_type}</span>{" "}
              <span className={delivery.state === "failed" ? "text-danger" : delivery.state === "delivered" ? "text-ok" : "text-muted"}>
                {state(delivery)}
              </span>
              <span className="block text-xs break-words text-muted">
                {formatDateTime(delivery.created_at, i18n.language)} ·{" "}
                {t("webhooks.attempts", { count: delivery.attempts })}
                {delivery.last_status !== null ? ` · HTTP ${delivery.last_status}` : ""}
              </span>
            </span>
            <Button disabled={replay.isPending} onClick={() => replay.mutate(delivery.event_id)}>
              {t("webhooks.replay")}
              {" "}<span className="sr-only">{delivery.event_type} {delivery.delivery_id}</span>
            </Button>
          </li>
        ))}
      </ul>
      <ErrorNote error={replay.error} />
    </div>
  );
}
