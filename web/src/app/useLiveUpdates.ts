/**
 * One EventSource on /api/v1/events/stream for the whole app. The browser
 * resumes with Last-Event-ID by itself after a dropped connection; when it
 * gives up (the server refused or went away), we reconnect with backoff and
 * `?after=` the last id seen, so nothing is missed either way. What the page had
 * fetched before the first stream opened is fetched again once it is live.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { EVENT_NAMES, type NewMailEvent } from "@/api";
import i18n from "@/lib/i18n";
import { notify } from "@/lib/notifications";
import { navigate } from "@/lib/router";
import { sdk } from "@/lib/sdk";
import { applyEvent } from "./liveEvents";

export type LiveState = "connecting" | "live" | "retrying";
const MAX_DELAY = 30_000;

export function useLiveUpdates(enabled: boolean): LiveState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>("connecting");

  useEffect(() => {
    if (!enabled || typeof EventSource === "undefined") return;
    let source: EventSource | null = null;
    let lastId: string | null = null;
    let attempt = 0;
    let opened = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const connect = () => {
      const url = lastId ? `${sdk.eventsUrl()}?after=${encodeURIComponent(lastId)}` : sdk.eventsUrl();
      source = new EventSource(url, { withCredentials: false });
      source.onopen = () => {
        // The first stream starts at its connection: what the page fetched before then
        // may miss a change made in between, which no event will tell. A new stream after
        // giving up may have missed a resync. The browser's own resume (Last-Event-ID)
        // misses nothing.
        if (!opened || attempt > 0) void queryClient.invalidateQueries();
        opened = true;
        attempt = 0;
        setState("live");
      };
      source.onerror = () => {
        if (!source || source.readyState !== EventSource.CLOSED) {
          setState("retrying"); // the browser reconnects itself, with Last-Event-ID
          return;
        }
        source.close();
        setState("retrying");
        const delay = Math.min(MAX_DELAY, 1000 * 2 ** attempt) * (0.5 + Math.random() / 2);
        attempt += 1;
        if (!stopped) timer = setTimeout(connect, delay);
      };
      for (const name of EVENT_NAMES) {
        source.addEventListener(name, (event) => {
          const message = event as MessageEvent<string>;
          if (message.lastEventId) lastId = message.lastEventId;
          let data: unknown = {};
          try {
            data = JSON.parse(message.data);
          } catch {
            return;
          }
          applyEvent(queryClient, name, data as never);
          const mail = data as Partial<NewMailEvent>;
          if (name === "new_mail" && mail.mail_type === "permission_request" && mail.mail_id) {
            const id = mail.mail_id;
            notify(i18n.t("notify.title"), mail.subject ?? "", () => navigate(`/decisions/${encodeURIComponent(id)}`), `agentmail-${id}`);
          }
        });
      }
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      source?.close();
    };
  }, [enabled, queryClient]);

  return state;
}
