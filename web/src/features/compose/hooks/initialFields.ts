import type { Mail } from "@/api";
import { addressName, formatDateTime } from "@/lib/format";
import type { ComposeRequest } from "./composeStore";

export interface ComposeFields {
  to: string;
  cc: string[];
  subject: string;
  body: string;
  budget: string; // "" = the agent's default; a number; or "unlimited"
  replyTo: string | null;
  /** A `.new` address's alias as the person typed it; null: the gateway makes it from the subject. */
  sessionAlias: string | null;
}

const prefixed = (prefix: string, subject: string) =>
  subject.toLowerCase().startsWith(prefix.toLowerCase()) ? subject : `${prefix} ${subject}`;

/** The mail answered, quoted under a line saying who wrote it and when, in the reader's words. */
function quote(mail: Mail, language: string): string {
  const body = (mail.body ?? mail.body_preview).split("\n").map((line) => `> ${line}`);
  return `\n\n${mail.from} (${formatDateTime(mail.created_at, language)}):\n${body.join("\n")}`;
}

/** The fields a compose window starts with: a reply goes to `from` (its alias keeps the conversation). */
export function initialFields(request: ComposeRequest, me: string, language = "en"): ComposeFields {
  const empty: ComposeFields = { to: "", cc: [], subject: "", body: "", budget: "", replyTo: null, sessionAlias: null };
  switch (request.mode) {
    case "new":
      return { ...empty, to: request.to ?? "" };
    case "draft": {
      const d = request.draft;
      return {
        to: d.to ?? "",
        cc: d.cc,
        subject: d.subject,
        body: d.body ?? "",
        budget: d.budget == null ? "" : String(d.budget),
        replyTo: d.reply_to,
        sessionAlias: d.session_alias,
      };
    }
    case "forward":
      return { ...empty, subject: prefixed("Fwd:", request.mail.subject) };
    case "reply":
    case "replyAll": {
      const mail = request.mail;
      const mine = (address: string) => addressName(address).toLowerCase() === me.toLowerCase();
      const sentByMe = mine(mail.from);
      const to = sentByMe ? mail.to : mail.from;
      const cc =
        request.mode === "replyAll"
          ? [mail.to, ...mail.cc].filter((a) => !mine(a) && a !== to)
          : [];
      return { ...empty, to, cc, subject: prefixed("Re:", mail.subject), body: quote(mail, language), replyTo: mail.mail_id };
    }
  }
}
