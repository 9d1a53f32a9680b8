import type { Mail } from "@/api";

/**
 * An agent's question (`mail_type: question`, sent by bridges) waits for my
 * reply until I have answered it: `answered` is my delivery's IMAP \Answered,
 * which a reply sets by any path (web, REST, SMTP), so it holds everywhere.
 */
export function needsReply(mail: Pick<Mail, "mail_type" | "answered" | "delivery">): boolean {
  return mail.mail_type === "question" && mail.answered !== true && mail.delivery !== null;
}
