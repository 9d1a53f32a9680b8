/**
 * The reply editor under a mail: write and send without leaving the mail.
 * An agent's question I have not answered opens it at once ("needs reply"). The full editor
 * (cc, attachments, preview) is one click away.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { needsReply } from "@/lib/needsReply";
import { sdk } from "@/lib/sdk";
import { openCompose } from "../hooks/composeStore";
import { initialFields } from "../hooks/initialFields";
import { OutsideReplyNote } from "./OutsideReplyNote";

/** `focus` false: open for a question but not focused (a page listing several, "Needs you"). */
export function QuickReply({ mail, me, focus = true }: { mail: Mail; me: string; focus?: boolean }) {
  const { t } = useTranslation();
  const id = useId();
  const queryClient = useQueryClient();
  const question = needsReply(mail);
  const [open, setOpen] = useState(question);
  const [body, setBody] = useState("");
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const fields = initialFields({ mode: "reply", mail }, me);

  // An outside sender and nobody else of the gateway's on the mail: nothing to reply to.
  if (!fields.to) return <OutsideReplyNote outside={fields.outside} nobody />;

  if (!open) {
    return (
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="mt-2 min-h-11 w-full rounded-md border border-line bg-surface px-3 text-left text-sm text-muted wrap-anywhere hover:bg-raised"
      >
        {t("reply.placeholder", { name: fields.to })}
      </button>
    );
  }

  async function send() {
    setSending(true);
    setError(null);
    try {
      await sdk.send({ to: fields.to, subject: fields.subject, body, reply_to: mail.mail_id, cc: [] });
      setSent(true);
      setBody("");
      void queryClient.invalidateQueries();
    } catch (cause) {
      setError(cause);
    } finally {
      setSending(false);
    }
  }

  return (
    <form
      className="mt-2 flex flex-col gap-2 rounded-md border border-line bg-surface p-3"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onKeyDown={(e) => {
        if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
          e.preventDefault();
          void send();
        }
      }}
    >
      <label htmlFor={id} className="text-sm font-medium wrap-anywhere">
        {question ? t("reply.answer", { name: fields.to }) : t("reply.label", { name: fields.to })}
      </label>
      <textarea
        id={id}
        value={body}
        onChange={(e) => {
          setBody(e.target.value);
          setSent(false);
        }}
        rows={4}
        autoFocus={question && focus}
        className="rounded-md border border-line bg-canvas p-2 font-mono text-sm"
      />
      <OutsideReplyNote outside={fields.outside} nobody={false} />
      <ErrorNote error={error} />
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" disabled={sending || !body.trim()}>
          {sending ? t("compose.sending") : t("compose.send")}
        </Button>
        <Button variant="ghost" onClick={() => openCompose({ mode: "reply", mail })}>
          {t("reply.full")}
        </Button>
        {sent ? (
          <span role="status" className="text-sm text-ok">
            {t("reply.sent")}
          </span>
        ) : null}
      </div>
    </form>
  );
}
