/**
 * One webhook: its URL and events, whether it is on (and why not: too many failed
 * deliveries in a row), and what can be done: enable it again, rotate its secret
 * (the new one shown once), see its last deliveries, delete it after asking.
 */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { Webhook, WebhookCreated, WebhookScope } from "@/api";
import { sdk } from "@/lib/sdk";
import { Button } from "./Button";
import { ConfirmDialog } from "./ConfirmDialog";
import { ErrorNote } from "./ErrorNote";
import { WebhookDeliveries } from "./WebhookDeliveries";

export interface WebhookRowProps {
  scope: WebhookScope;
  hook: Webhook;
  onChange: () => void;
  onSecret: (made: WebhookCreated) => void;
}

export function WebhookRow({ scope, hook, onChange, onSecret }: WebhookRowProps) {
  const { t } = useTranslation();
  const calls = sdk.webhooks(scope);
  const id = hook.webhook_id;
  const [confirming, setConfirming] = useState(false);
  const [open, setOpen] = useState(false);
  const enable = useMutation({ mutationFn: () => calls.enable(id), onSuccess: onChange });
  const rotate = useMutation({ mutationFn: () => calls.rotateSecret(id), onSuccess: onSecret });
  return (
    <li className="flex flex-col gap-2 py-3 text-sm">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="min-w-0 flex-1 font-mono break-all">{hook.url}</span>
        {hook.enabled ? (
          <span className="rounded bg-ok-soft px-2 py-0.5 text-xs text-ok">{t("webhooks.enabled")}</span>
        ) : (
          <span className="rounded bg-warn-soft px-2 py-0.5 text-xs text-warn">{t("webhooks.disabled")}</span>
        )}
      </div>
      {hook.description ? <p className="break-words">{hook.description}</p> : null}
      <p className="text-xs break-words text-muted">
        {scope === "admin" ? `${t("webhooks.owner", { owner: hook.owner })} · ` : null}
        <span className="font-mono">{hook.events.join(", ")}</span>
      </p>
      {!hook.enabled ? (
        <p className="text-warn">
          {hook.failures > 0 ? t("webhooks.disabledAfter", { failures: hook.failures }) : t("webhooks.disabledNoReason")}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        {!hook.enabled ? (
          <Button disabled={enable.isPending} onClick={() => enable.mutate()}>
            {t("webhooks.enable")}
          </Button>
        ) : null}
        <Button disabled={rotate.isPending} onClick={() => rotate.mutate()}>
          {t("webhooks.rotate")}
        </Button>
        <Button aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? t("webhooks.hideDeliveries") : t("webhooks.showDeliveries")}
        </Button>
        <Button variant="danger" onClick={() => setConfirming(true)}>
          {t("webhooks.delete")}
          {" "}<span className="sr-only">{hook.url}</span>
        </Button>
      </div>
      <ErrorNote error={enable.error ?? rotate.error} />
      {open ? <WebhookDeliveries scope={scope} webhookId={id} /> : null}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={t("webhooks.deleteTitle", { url: hook.url })}
        description={t("webhooks.deleteHint")}
        action={t("webhooks.delete")}
        onConfirm={() => calls.remove(id).then(onChange)}
      />
    </li>
  );
}
