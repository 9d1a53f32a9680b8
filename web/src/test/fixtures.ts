/** The fake gateway's data: the mails, the conversation and the agent the app tests see. */
import type { ListedMail, Mail, Session } from "@/api";

export const base: Mail = {
  mail_id: "m1", session_id: "s1", session_alias: "fix-leak", seq: 1,
  from: "builder@ModelRouter.fix-leak", from_email: "builder@agentmail.localhost",
  to: "jianf@.fix-leak", to_email: "jianf@agentmail.localhost", cc: [], cc_email: [],
  subject: "The leak is fixed", body: "Fixed in **auth.py**.", body_preview: "Fixed in auth.py.",
  mail_type: "normal", message_id: "<m1@x>", parent_mail_id: null, created_at: "2026-12-01T10:00:00Z",
  auto: false, status: "unread", attachments: [{ attachment_id: "a1", filename: "patch.diff", size: 2048, sha256: "0" }],
};
export const permissionMail: Mail = {
  ...base, mail_id: "m2", seq: 2, subject: "May I restart the server?", body: "May I restart the server?\n\nIt hangs.",
  body_preview: "May I restart the server?", mail_type: "permission_request", status: "read",
  options: ["approve", "reject"], permission_state: "open", action: "systemctl restart app",
  action_sha256: "ab".repeat(32), expires_at: null, attachments: [],
};
/** An agent's question, not answered yet: "needs reply", the reply editor open under it. */
export const questionMail: Mail = {
  ...base, mail_id: "m3", seq: 3, subject: "Which branch?", body: "Should I fix it on **main** or on release-2?",
  body_preview: "Should I fix it on main or on release-2?", mail_type: "question", status: "read", answered: false,
  created_at: "2026-12-01T11:00:00Z", attachments: [],
};
export const session: Session = {
  session_id: "s1", session_alias: "fix-leak", subject: "Fix the leak", status: "waiting", budget_limit: 3,
  budget_used: 2, budget_remaining: 1, participants: ["jianf", "builder"], created_by: "jianf", mail_count: 3,
  created_at: "2026-12-01T09:00:00Z", updated_at: "2026-12-01T11:00:00Z",
  latest: { mail_id: "m3", from: "builder@ModelRouter.fix-leak", excerpt: "Should I fix it on main or on release-2?", created_at: "2026-12-01T11:00:00Z" },
  unread: 1, tasks: { mail_id: "m3", done: 1, total: 3 },
  participant_details: [
    { name: "jianf", kind: "human", online: true },
    { name: "builder", kind: "agent", online: true },
  ],
};
export const user = {
  user_id: "u1", name: "jianf", address: "jianf@", email: "jianf@agentmail.localhost", is_admin: false, created_at: "",
};
export const agent = {
  agent_id: "a1", agent_name: "builder", platform: "opencode", status: "online", last_seen: "2026-12-01T10:00:00Z",
  default_budget: 20, created_at: "",
  workspaces: [{ name: "ModelRouter", path: "/home/u/ModelRouter", address: "builder@ModelRouter", email: "builder@agentmail.localhost" }],
};
export const mailSettings = {
  smtp: { host: "mail.example.org", port: 465, security: "ssl/tls", ports: [{ port: 465, security: "ssl/tls" }, { port: 587, security: "starttls" }] },
  imap: { host: "mail.example.org", port: 993, security: "ssl/tls", ports: [{ port: 993, security: "ssl/tls" }, { port: 143, security: "starttls" }] },
  username: "jianf", address: "jianf@", email: "jianf@agentmail.localhost",
};

/** A mail as the list rows endpoints give it (`GET /me/mail/inbox/rows`). */
export function listedOf(mail: Mail): ListedMail {
  return {
    mail_id: mail.mail_id, session_id: mail.session_id, session_alias: mail.session_alias,
    from: mail.from, to: mail.to, subject: mail.subject, excerpt: mail.body_preview,
    created_at: mail.created_at, mail_type: mail.mail_type, auto: mail.auto,
    permission_state: mail.permission_state ?? null, delivery: mail.delivery === undefined ? "to" : mail.delivery,
    status: mail.status ?? null, flagged: mail.flagged ?? null, answered: mail.answered ?? null,
    folder_id: mail.folder_id ?? null, attachment_count: mail.attachments?.length ?? 0,
    tasks_done: mail.tasks_done ?? 0, tasks_total: mail.tasks_total ?? 0,
  };
}

/** A page of list rows. */
export const rowsOf = (mails: Mail[]) => ({ rows: mails.map(listedOf), total: mails.length, total_exact: true, has_more: false });
