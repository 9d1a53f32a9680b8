/**
 * A fake gateway for app tests: `fetch` answered from fixtures as the real
 * routes answer (same shapes, same error codes and messages), recording what
 * was called and with which bodies.
 */
import { vi } from "vitest";
import type { Mail } from "@/api";
import { agent, base, mailSettings, permissionMail, questionMail, rowsOf, session, user } from "./fixtures";
import { answerAccount, resetFakeAccount } from "./fakeAccount";
import { checkAddress } from "./fakeAddresses";
import { answerAdmin, resetFakeAdmin } from "./fakeAdmin";
import { answerFolders, placed, resetFakeFolders } from "./fakeFolders";
import { search } from "./fakeSearch";

export { base, permissionMail, questionMail } from "./fixtures";
export { fakeAccount } from "./fakeAccount";

export const CURRENT_PASSWORD = "password123";
/** The gateway's default upload limit (AGENTMAIL_MAX_ATTACHMENT_BYTES): 25 MiB. */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
/** Failed password checks before the throttle answers 429 (core/identity/login_guard.py). */
const THROTTLE_AFTER = 5;

export const gateway = {
  signedIn: true,
  calls: [] as string[],
  bodies: {} as Record<string, unknown>,
  /** More mail that only search finds (to page through many results). */
  searchable: [] as Mail[],
  answered: new Set<string>(),
  failedPasswords: 0,
};
const { calls, bodies } = gateway;

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
type Fields = { field: string; code: string; limit?: number }[];
const refuse = (status: number, code: string, message: string, headers: Record<string, string> = {}, fields: Fields = []) =>
  json({ error: fields.length ? { code, message, fields } : { code, message } }, status, headers);

/** A mail as the store has it now: a question I replied to is answered (IMAP's \Answered). */
const current = (mail: Mail): Mail => (gateway.answered.has(mail.mail_id) ? { ...mail, answered: true } : mail);
const inbox = () => [base, permissionMail, questionMail].map(current).map(placed);

/** The inbox listing by `status`, as core/mail/reading.py filters it (filed mail is in none but Trash). */
function listed(status: string | null): Mail[] {
  return inbox().filter((m) => {
    switch (status) {
      case "unread":
      case "read":
        return m.status === status;
      case "archived":
        return m.status === "archived" && !m.folder_id;
      case "deleted":
        return m.status === "deleted";
      default:
        return m.status === "unread" || m.status === "read";
    }
  });
}

function changePassword(body: { current_password: string; new_password: string }): Response {
  if (body.new_password.length < 8) {
    return refuse(422, "invalid_request", "new_password: String should have at least 8 characters", {}, [
      { field: "new_password", code: "too_short", limit: 8 },
    ]);
  }
  if (gateway.failedPasswords >= THROTTLE_AFTER) {
    return refuse(429, "rate_limited", "too many failed logins: try again in 60 s", { "Retry-After": "60" });
  }
  if (body.current_password !== CURRENT_PASSWORD) {
    gateway.failedPasswords += 1;
    return refuse(401, "unauthorized", "the current password is wrong", { "WWW-Authenticate": "Bearer" }, [
      { field: "current_password", code: "wrong" },
    ]);
  }
  return json({ status: "changed" });
}

async function answer(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const path = `${request.method} ${url.pathname}`;
  calls.push(`${path}${url.search}`);
  if (request.method !== "GET") {
    const text = await request.text();
    bodies[path] = text ? JSON.parse(text) : null;
  }
  if (path === "GET /api/v1/auth/session") return json({ user: gateway.signedIn ? user : null });
  if (!gateway.signedIn && path !== "POST /api/v1/auth/login") {
    return refuse(401, "unauthorized", "authentication required");
  }
  const admin = answerAdmin(request.method, url.pathname, bodies[path], json);
  if (admin) return admin;
  const account = answerAccount(request.method, url.pathname, bodies[path], json);
  if (account) return account;
  const folders = answerFolders(request.method, url, bodies[path], json, inbox());
  if (folders) return folders;
  const detail = /^GET \/api\/v1\/me\/mail\/(m\d+)$/.exec(path);
  const found = detail ? inbox().find((m) => m.mail_id === detail[1]) : undefined;
  if (found) return json(found);
  if (/^GET \/api\/v1\/me\/mail\/m\d+\/tree$/.test(path)) {
    return json({ mail_id: "m1", direction: "around", mails: [], root_mail_id: "m1", next_cursor_up: null, next_cursor_down: null });
  }
  switch (path) {
    case "POST /api/v1/auth/login":
      gateway.signedIn = true;
      return json({ user });
    case "GET /api/v1/me":
      return json({ user, limits: { max_attachment_bytes: MAX_ATTACHMENT_BYTES } });
    case "GET /api/v1/me/mail/inbox": {
      const mails = listed(url.searchParams.get("status"));
      return json({ mails, total: mails.length });
    }
    case "GET /api/v1/me/mail/inbox/rows":
      return json(rowsOf(listed(url.searchParams.get("status"))));
    case "GET /api/v1/me/mail/sent":
      return json({ mails: [], total: 0 });
    case "GET /api/v1/me/mail/sent/rows":
      return json(rowsOf([]));
    case "GET /api/v1/me/search": {
      const outcome = search([...inbox(), ...gateway.searchable], url.searchParams);
      return json(outcome.body, outcome.status);
    }
    case "GET /api/v1/me/sessions":
      return json({ sessions: [session], total: 1 });
    case "GET /api/v1/agents":
      return json({ agents: [agent] });
    case "GET /api/v1/me/keys":
      return json({ keys: [{ key_id: "k1", kind: "user", label: "thunderbird", lifecycle: "permanent", owner: "jianf", active: true, created_at: "2026-12-01T09:00:00Z", expires_at: null, revoked_at: null, used_at: null }] });
    case "GET /api/v1/me/mail-settings":
      return json(mailSettings);
    case "GET /api/v1/me/push/subscriptions":
      return json({ subscriptions: [{ subscription_id: "p1", push_service: "fcm.googleapis.com", user_agent: "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Mobile Safari/537.36", created_at: "2026-12-01T09:00:00Z" }] });
    case "DELETE /api/v1/me/push/subscriptions/p1":
      return json({ status: "revoked" });
    case "POST /api/v1/me/password":
      return changePassword(bodies[path] as { current_password: string; new_password: string });
    case "GET /api/v1/me/permissions":
      return json({ mails: [permissionMail], total: 1 });
    case "POST /api/v1/me/mail/m1/read":
      return json({ mail_id: "m1", status: "read" });
    case "GET /api/v1/me/sessions/s1":
      return json({ session, mails: inbox() });
    case "PATCH /api/v1/me/sessions/s1": {
      const change = bodies[path] as { budget_limit?: number };
      const limit = change.budget_limit ?? session.budget_limit;
      return json({ ...session, budget_limit: limit, budget_remaining: Number(limit) - session.budget_used });
    }
    case "GET /api/v1/me/sessions/s1/proposals":
      return json({ proposals: [] });
    case "GET /api/v1/me/addresses/suggest":
      return json({
        candidates: [
          { address: "builder@ModelRouter", email: "builder@agentmail.localhost", kind: "agent", description: "/home/u/ModelRouter · online", session_id: null },
          { address: "builder@ModelRouter.fix-leak", email: "x", kind: "conversation", description: "Fix the leak · waiting", session_id: "s1" },
        ].filter((c) => c.address.startsWith(url.searchParams.get("q") ?? "")),
      });
    case "GET /api/v1/me/addresses/check":
      return json(checkAddress(url.searchParams.get("address") ?? "", url.searchParams.get("reply_to")));
    case "POST /api/v1/me/mail/send": {
      const body = bodies[path] as { to: string; cc?: string[]; reply_to?: string | null };
      for (const address of [body.to, ...(body.cc ?? [])]) {
        const check = checkAddress(address);
        if (check.error) return refuse(422, check.error.code, check.error.message);
      }
      if (body.reply_to) gateway.answered.add(body.reply_to);
      return json({ mail_id: "m9", session_id: "s9", session_alias: "new-one", message_id: "<m9@x>", budget_limit: 5, budget_used: 0, budget_remaining: 5, created_at: "" });
    }
    case "POST /api/v1/me/drafts":
      return json({ draft_id: "d1", to: null, to_email: null, cc: [], cc_email: [], subject: "", body: "", body_preview: "", reply_to: null, session_alias: null, budget: null, created_at: "", updated_at: "" }, 201);
    case "DELETE /api/v1/me/drafts/d1":
      return json({ draft_id: "d1", status: "deleted" });
    case "POST /api/v1/me/permission/decide":
      return json({ status: "decided", mail_id: "m2", decision: "approve", action_sha256: permissionMail.action_sha256 });
    default:
      return refuse(404, "not_found", `no fixture for ${path}`);
  }
}

/** Replace fetch with the fake gateway, signed in, with nothing recorded yet. */
export function installFakeGateway(): void {
  gateway.signedIn = true;
  gateway.searchable = [];
  gateway.answered.clear();
  gateway.failedPasswords = 0;
  resetFakeAdmin();
  resetFakeAccount();
  resetFakeFolders();
  calls.length = 0;
  for (const key of Object.keys(bodies)) delete bodies[key];
  vi.stubGlobal("fetch", vi.fn(async (input: Request) => answer(input)));
}
