/**
 * "Webhooks": endpoints the gateway POSTs its events to, signed with a secret shown
 * once (when made, and when rotated). Mine hear the events addressed to me; an
 * admin's (`scope="admin"`) hear everyone's (api/routes/webhooks.py).
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { WebhookScope } from "@/api";
import { sdk } from "@/lib/sdk";
import { ErrorNote } from "./ErrorNote";
import { ShownOnce } from "./ShownOnce";
import { WebhookForm } from "./WebhookForm";
import { WebhookRow } from "./WebhookRow";

const listKey = (scope: WebhookScope) => ["webhooks", scope] as const;

export function WebhookSection({ scope }: { scope: WebhookScope }) {
  const { t } = useTranslation();
  const titleId = useId();
  const calls = sdk.webhooks(scope);
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: listKey(scope), queryFn: async () => (await calls.list()).webhooks });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: listKey(scope) });
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const hooks = list.data ?? [];
  return (
    <section className="flex flex-col gap-3" aria-labelledby={titleId}>
      <h2 id={titleId} className="text-lg font-semibold">
        {t("webhooks.title")}
      </h2>
      <p className="text-sm text-muted">{scope === "admin" ? t("webhooks.hintAdmin") : t("webhooks.hint")}</p>
      <WebhookForm
        onCreate={async (url, events, description) => {
          const made = await calls.create(url, events, description);
          setSecret({ url: made.url, secret: made.secret });
          refresh();
        }}
      />
      {secret ? <ShownOnce value={secret.secret} note={t("webhooks.secretOnce", { url: secret.url })} label={t("webhooks.secret")} /> : null}
      {list.isError ? <ErrorNote error={list.error} /> : null}
      {list.isSuccess && hooks.length === 0 ? <p className="text-sm text-muted">{t("webhooks.none")}</p> : null}
      {hooks.length > 0 ? (
        <ul className="flex flex-col divide-y divide-line">
          {hooks.map((hook) => (
            <WebhookRow
              key={hook.webhook_id}
              scope={scope}
              hook={hook}
              onChange={refresh}
              onSecret={(made) => setSecret({ url: made.url, secret: made.secret })}
            />
          ))}
        </ul>
      ) : null}
    </section>
  );
}
