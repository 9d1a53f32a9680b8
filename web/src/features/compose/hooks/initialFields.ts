import type { Mail } from "@/api";
import { addressName, formatDateTime, isOutside } from "@/lib/format";
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
  /** Outside addresses (imported mail) a reply leaves out: the gateway sends no mail outside. */
  outside: string[];
}

const prefixed = (prefix: string, subject: string) =>
  subject.toLowerCase().startsWith(prefix.toLowerCase()) ? subject : `${prefix} ${subject}`;

/** The mail answered, quoted under a line saying who wrote it and when, in the reader's words. */
function quote(mail: Mail, language: string): string {
  const body = (mail.body ?? mail.body_preview).split("\n").map((line) => `> ${line}`);
  const from = isOutside(mail.from) ? addressName(mail.from) : mail.from;
  return `\n\n${from} (${formatDateTime(mail.created_at, language)}):\n${body.join("\n")}`;
}

/**
 * The fields a compose window starts with: a reply goes to `from` (its alias keeps the
 * conversation), reply-all to the rest as cc; outside addresses are left out and named.
 */
export function initialFields(request: ComposeRequest, me: string, language = "en"): ComposeFields {
  const empty: ComposeFields = {
    to: "",
    cc: [],
    subject: "",
    body: "",
    budget: "",
    replyTo: null,
    sessionAlias: null,
    outside: [],
  };
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
        outside: [],
      };
    }
    case "forward":
      return { ...empty, subject: prefixed("Fwd:", request.mail.subject) };
    case "reply":
    case "replyAll": {
      const mail = request.mail;
      const mine = (address: string) => addressName(address).toLowerCase() === me.toLowerCase();
      const sentByMe = mine(mail.from);
      const first = sentByMe ? mail.to : mail.from;
      const others = [mail.to, ...mail.cc].filter((a) => !mine(a) && a !== first);
      // The gateway mails nobody outside: such a sender's reply goes to the first one
      // of the gateway's own participants instead (none: an empty To, explained).
      const outside = [first, ...others].filter(isOutside);
      const inside = others.filter((a) => !isOutside(a));
      const to = isOutside(first) ? (inside[0] ?? "") : first;
      const cc = request.mode === "replyAll" ? inside.filter((a) => a !== to) : [];
      const base = { ...empty, subject: prefixed("Re:", mail.subject), body: quote(mail, language), replyTo: mail.mail_id };
      return { ...base, to, cc, outside: request.mode === "replyAll" ? outside : outside.filter((a) => a === first) };
    }
  }
}
