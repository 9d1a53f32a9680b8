/**
 * "Push notifications" on the Account page: enable Web Push on this device, and list
 * and revoke the devices that get a notification of each permission request and
 * question, even with no AgentMail tab open.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { deviceOf } from "@/lib/deviceName";
import { formatDateTime } from "@/lib/format";
import { enablePush, listSubscriptions, PushDenied, pushSupported, revokeSubscription, thisDevice } from "@/lib/push";

const QUERY_KEY = ["me", "push-subscriptions"] as const;

export function PushSection() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const subscriptions = useQuery({ queryKey: QUERY_KEY, queryFn: listSubscriptions });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: QUERY_KEY });
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
      void refresh();
    }
  };
  const mine = thisDevice();
  const list = subscriptions.data ?? [];
  const named = (item: { user_agent?: string | null; push_service: string }) => {
    const device = deviceOf(item.user_agent ?? "");
    if (device === null) return item.user_agent || item.push_service;
    return device.system === null ? device.browser : t("push.device", { browser: device.browser, system: device.system });
  };
  return (
    <section className="flex flex-col gap-3" aria-labelledby="push-title">
      <h2 id="push-title" className="text-lg font-semibold">
        {t("push.title")}
      </h2>
      <p className="text-sm text-muted">{t("push.hint")}</p>
      {pushSupported() ? (
        <Button className="self-start" disabled={busy} onClick={() => void run(enablePush)}>
          {t("push.enable")}
        </Button>
      ) : (
        <p className="text-sm text-muted">{t("push.unsupported")}</p>
      )}
      {error instanceof PushDenied ? (
        <p role="alert" className="text-sm text-danger">
          {t("push.denied")}
        </p>
      ) : error instanceof Error && !(error instanceof ApiError) ? (
        <p role="alert" className="text-sm text-danger">
          {t("push.failed")}
        </p>
      ) : error ? (
        <ErrorNote
          error={error}
          words={{ codes: { limit_reached: t("push.tooMany") }, fields: { "endpoint.invalid": () => t("push.endpointRefused") } }}
        />
      ) : null}
      {subscriptions.isError ? <ErrorNote error={subscriptions.error} /> : null}
      {list.length === 0 ? (
        <p className="text-sm text-muted">{t("push.none")}</p>
      ) : (
        <ul className="flex flex-col divide-y divide-line text-sm">
          {list.map((item) => (
            <li key={item.subscription_id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2">
              <span className="min-w-0 flex-1 break-words" title={item.user_agent || undefined}>
                {named(item)}
                {item.subscription_id === mine ? <span className="ml-2 text-muted">{t("push.thisDevice")}</span> : null}
                <span className="block text-xs text-muted">
                  {item.push_service} · {formatDateTime(item.created_at, i18n.language)}
                </span>
              </span>
              <Button variant="danger" disabled={busy} onClick={() => void run(() => revokeSubscription(item.subscription_id))}>
                {t("push.revoke")}
                <span className="sr-only"> {named(item)}</span>
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
