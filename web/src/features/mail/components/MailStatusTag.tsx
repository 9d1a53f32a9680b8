import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { needsReply } from "@/lib/needsReply";

const CHIP = "shrink-0 rounded px-1.5 py-0.5 text-xs whitespace-nowrap";

/** What a mail is waiting for, in a word: a decision, a reply (an agent's question I have not answered), or nothing.
 * A chip never wraps ("Needs / decision"): it is one word to the eye. */
export function MailStatusTag({ mail }: { mail: Pick<Mail, "mail_type" | "permission_state" | "answered" | "delivery"> }) {
  const { t } = useTranslation();
  if (mail.mail_type === "permission_request") {
    const state = mail.permission_state ?? "open";
    const style =
      state === "open" ? "bg-warn-soft text-warn" : state === "expired" ? "bg-raised text-muted" : "bg-ok-soft text-ok";
    return <span data-chip="" className={`${CHIP} font-medium ${style}`}>{t(`permission.state.${state}`)}</span>;
  }
  if (needsReply(mail)) {
    return <span data-chip="" className={`${CHIP} bg-warn-soft font-medium text-warn`}>{t("mail.needsReply")}</span>;
  }
  if (mail.mail_type === "forward") {
    return <span data-chip="" className={`${CHIP} bg-raised text-muted`}>{t("mail.forwarded")}</span>;
  }
  return null;
}
