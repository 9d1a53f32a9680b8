/** A new webhook: its https URL, the event types it hears (all, unless narrowed), a note. */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { WebhookEvent } from "@/api";
import { Button } from "./Button";
import { ErrorNote } from "./ErrorNote";

/** The event types the API takes (the enum of `WebhookBody.events`, core/webhooks/events.py). */
export const WEBHOOK_EVENTS = [
  "mail.received",
  "permission.requested",
  "permission.decided",
  "question.asked",
  "conversation.updated",
] as const satisfies readonly WebhookEvent[];
// Fails to compile when the API takes an event type this list lacks.
const _all: Exclude<WebhookEvent, (typeof WEBHOOK_EVENTS)[number]> extends never ? true : never = true;
void _all;

export interface WebhookFormProps {
  onCreate: (url: string, events: WebhookEvent[], description: string) => Promise<unknown>;
}

export function WebhookForm({ onCreate }: WebhookFormProps) {
  const { t } = useTranslation();
  const ids = { url: useId(), description: useId(), events: useId() };
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<Set<WebhookEvent>>(() => new Set(WEBHOOK_EVENTS));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const input = "min-h-10 w-full min-w-0 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11";
  const toggle = (event: WebhookEvent, on: boolean) => {
    const next = new Set(events);
    if (on) next.add(event);
    else next.delete(event);
    setEvents(next);
  };
  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        onCreate(url.trim(), WEBHOOK_EVENTS.filter((event) => events.has(event)), description.trim())
          .then(() => {
            setUrl("");
            setDescription("");
          }, setError)
          .finally(() => setBusy(false));
      }}
    >
      <div className="flex flex-wrap items-end gap-2">
        <div className="flex min-w-0 flex-[2_1_16rem] flex-col gap-1">
          <label htmlFor={ids.url} className="text-sm">
            {t("webhooks.url")}
          </label>
          <input id={ids.url} type="url" inputMode="url" placeholder="https://example.com/hooks/agentmail" className={input} value={url} onChange={(e) => setUrl(e.target.value)} />
        </div>
        <div className="flex min-w-0 flex-[1_1_10rem] flex-col gap-1">
          <label htmlFor={ids.description} className="text-sm">
            {t("webhooks.description")}
          </label>
          <input id={ids.description} maxLength={200} className={input} value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
      </div>
      <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <legend className="mb-1">{t("webhooks.events")}</legend>
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event} className="flex min-h-9 items-center gap-2 font-mono max-md:min-h-11">
            <input type="checkbox" checked={events.has(event)} onChange={(e) => toggle(event, e.target.checked)} />
            {event}
          </label>
        ))}
      </fieldset>
      <Button type="submit" variant="primary" className="self-start" disabled={busy || !url.trim() || events.size === 0}>
        {t("webhooks.create")}
      </Button>
      <ErrorNote
        error={error}
        words={{
          codes: { limit_reached: t("webhooks.tooMany", { max: 20 }) },
          fields: { "url.invalid": () => t("webhooks.urlRefused"), "url.too_long": () => t("webhooks.urlRefused") },
        }}
      />
    </form>
  );
}
