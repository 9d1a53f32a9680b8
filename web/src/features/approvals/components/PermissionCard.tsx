/**
 * A permission request as a card: the question, the context, the exact action
 * (with its SHA-256, which a bridge checks the decision against), a live expiry
 * countdown, and the options as buttons. It follows the request's state live:
 * decided here, decided elsewhere (a mail reply, another tab) or expired.
 */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { Markdown } from "@/components/Markdown";
import { addressName, formatDateTime } from "@/lib/format";
import { useNow } from "@/lib/useNow";
import { ExpiryCountdown } from "./ExpiryCountdown";

export type CardState = "open" | "decidedHere" | "decidedElsewhere" | "expired";

export interface PermissionCardProps {
  mail: Mail;
  /** My user name: only the human the request is addressed to decides. */
  me: string;
  onDecide: (decision: string, note: string) => Promise<unknown>;
  compact?: boolean;
}

export function requestContext(mail: Mail): string {
  const text = (mail.body ?? mail.body_preview).trim();
  return text.startsWith(mail.subject) ? text.slice(mail.subject.length).trim() : text;
}

export function cardState(mail: Mail, now: number, decidedHere: boolean): CardState {
  if (mail.permission_state === "decided" || decidedHere) return decidedHere ? "decidedHere" : "decidedElsewhere";
  if (mail.permission_state === "expired") return "expired";
  if (mail.expires_at && new Date(mail.expires_at).getTime() <= now) return "expired";
  return "open";
}

const FRAME: Record<CardState, string> = {
  open: "border-warn",
  decidedHere: "border-ok",
  decidedElsewhere: "border-ok",
  expired: "border-line",
};

export function PermissionCard({ mail, me, onDecide, compact }: PermissionCardProps) {
  const { t, i18n } = useTranslation();
  const noteId = useId();
  const [note, setNote] = useState("");
  const [choice, setChoice] = useState<{ decision: string; note: string } | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const live = mail.permission_state === "open" || mail.permission_state == null;
  const now = useNow(live && Boolean(mail.expires_at) && choice === null);
  const state = cardState(mail, now, choice !== null);
  const options = mail.options?.length ? mail.options : ["approve", "reject"];
  const addressedToMe = addressName(mail.to).toLowerCase() === me.toLowerCase();
  const context = requestContext(mail);
  // Compact cards are listed under a page's h1 (Needs decision); a full one sits under its mail's h2.
  const Heading = compact ? "h2" : "h3";

  async function decide(decision: string) {
    setPending(decision);
    setError(null);
    try {
      await onDecide(decision, note.trim());
      setChoice({ decision, note: note.trim() });
    } catch (cause) {
      setError(cause);
    } finally {
      setPending(null);
    }
  }

  return (
    <section
      aria-label={t("permission.cardLabel")}
      data-state={state}
      className={`flex flex-col gap-3 rounded-lg border-2 bg-surface p-4 ${FRAME[state]}`}
    >
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <span className="min-w-0 text-xs font-semibold tracking-wide text-muted uppercase wrap-anywhere">
          {t("permission.title", { agent: addressName(mail.from) })}
        </span>
        {state === "open" && mail.expires_at ? <ExpiryCountdown expiresAt={mail.expires_at} now={now} /> : null}
      </header>
      <Heading className="text-lg font-semibold wrap-anywhere">{mail.subject}</Heading>
      {context ? <Markdown text={context} className={compact ? "line-clamp-4 text-sm" : "text-sm"} /> : null}
      {mail.action ? (
        <figure className="flex flex-col gap-1">
          <figcaption className="text-xs text-muted">{t("permission.action")}</figcaption>
          <pre className="overflow-x-auto rounded-md bg-raised p-3 font-mono text-sm whitespace-pre-wrap break-all">
            {mail.action}
          </pre>
          {mail.action_sha256 ? (
            <span className="font-mono text-xs text-muted" title={mail.action_sha256}>
              sha256 {mail.action_sha256.slice(0, 12)}…
            </span>
          ) : null}
        </figure>
      ) : null}
      <StateLine state={state} mail={mail} choice={choice} language={i18n.language} />
      {state === "open" && addressedToMe ? (
        <div className="flex flex-col gap-2">
          <label htmlFor={noteId} className="text-sm text-muted">
            {t("permission.note")}
          </label>
          <textarea
            id={noteId}
            value={note}
            onChange={(e) => setNote(e.target.value)}
            rows={2}
            className="rounded-md border border-line bg-canvas p-2 text-sm"
          />
          <div className="flex flex-wrap gap-2" role="group" aria-label={t("permission.options")}>
            {options.map((option, index) => (
              <Button
                key={option}
                variant={index === 0 ? "primary" : "secondary"}
                disabled={pending !== null}
                className="max-w-full wrap-anywhere"
                onClick={() => void decide(option)}
              >
                {pending === option ? t("permission.sending") : option}
              </Button>
            ))}
          </div>
          <ErrorNote error={error} />
        </div>
      ) : null}
      {state === "open" && !addressedToMe ? (
        <p className="text-sm text-muted">{t("permission.waitingFor", { name: addressName(mail.to) })}</p>
      ) : null}
    </section>
  );
}

function StateLine({
  state,
  mail,
  choice,
  language,
}: {
  state: CardState;
  mail: Mail;
  choice: { decision: string; note: string } | null;
  language: string;
}) {
  const { t } = useTranslation();
  if (state === "open") return null;
  if (state === "expired") {
    return (
      <p role="status" className="rounded-md bg-raised px-3 py-2 text-sm text-muted">
        {t("permission.expired")}
      </p>
    );
  }
  const decision = choice?.decision ?? mail.decision ?? "";
  const note = choice?.note ?? mail.decision_note ?? "";
  return (
    <div role="status" className="rounded-md bg-ok-soft px-3 py-2 text-sm text-ok">
      <p>
        {state === "decidedHere"
          ? t("permission.decidedHere", { decision })
          : t("permission.decidedElsewhere", {
              decision,
              name: mail.decided_by ? addressName(mail.decided_by) : "?",
              time: mail.decided_at ? formatDateTime(mail.decided_at, language) : "",
            })}
      </p>
      {note ? <p className="mt-1 text-ink">{t("permission.noteWas", { note })}</p> : null}
    </div>
  );
}
