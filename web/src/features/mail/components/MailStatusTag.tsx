import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { needsReply } from "@/lib/needsReply";

/** What a mail is waiting for, in a word: a decision, a reply (an agent's question I have not answered), or nothing. */
export function MailStatusTag({ mail }: { mail: Pick<Mail, "mail_type" | "permission_state" | "answered" | "delivery"> }) {
  const { t } = useTranslation();
  if (mail.mail_type === "permission_request") {
    const state = mail.permission_state ?? "open";
    const style =
      state === "open" ? "bg-warn-soft text-warn" : state === "expired" ? "bg-raised text-muted" : "bg-ok-soft text-ok";
    return <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${style}`}>{t(`permission.state.${state}`)}</span>;
  }
  if (needsReply(mail)) {
    return <span className="rounded bg-warn-soft px-1.5 py-0.5 text-xs font-medium text-warn">{t("mail.needsReply")}</span>;
  }
  if (mail.mail_type === "forward") {
    return <span className="rounded bg-raised px-1.5 py-0.5 text-xs text-muted">{t("mail.forwarded")}</span>;
  }
  return null;
}
