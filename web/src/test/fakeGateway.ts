/**
 * A fake gateway for app tests: `fetch` answered from fixtures, recording what
 * was called and with which bodies.
 */
import { vi } from "vitest";
import type { Mail } from "@/api";

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
const session = {
  session_id: "s1", session_alias: "fix-leak", subject: "Fix the leak", status: "waiting", budget_limit: 3,
  budget_used: 2, budget_remaining: 1, participants: ["jianf", "builder"], created_by: "jianf", mail_count: 2,
  created_at: "2026-12-01T09:00:00Z", updated_at: "2026-12-01T10:00:00Z",
};

export const gateway = { signedIn: true, calls: [] as string[], bodies: {} as Record<string, unknown> };
const { calls, bodies } = gateway;

async function answer(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const path = `${request.method} ${url.pathname}`;
  calls.push(`${path}${url.search}`);
  if (request.method !== "GET") {
    const text = await request.text();
    bodies[path] = text ? JSON.parse(text) : null;
  }
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
  if (!gateway.signedIn && path !== "POST /api/v1/auth/login") {
    return json({ error: { code: "unauthorized", message: "authentication required" } }, 401);
  }
  const user = { user_id: "u1", name: "jianf", address: "jianf@", email: "jianf@agentmail.localhost", is_admin: false, created_at: "" };
  switch (path) {
    case "POST /api/v1/auth/login":
      gateway.signedIn = true;
      return json({ user });
    case "GET /api/v1/me":
      return json({ user });
    case "GET /api/v1/me/mail/inbox":
      return url.searchParams.get("status") === "unread" ? json({ mails: [base], total: 1 }) : json({ mails: [base, permissionMail], total: 2 });
    case "GET /api/v1/me/mail/sent":
      return json({ mails: [], total: 0 });
    case "GET /api/v1/me/sessions":
      return json({ sessions: [session], total: 1 });
    case "GET /api/v1/agents":
      return json({
        agents: [{
          agent_id: "a1", agent_name: "builder", platform: "opencode", status: "online", last_seen: "2026-12-01T10:00:00Z",
          default_budget: 20, created_at: "",
          workspaces: [{ name: "ModelRouter", path: "/home/u/ModelRouter", address: "builder@ModelRouter", email: "builder@agentmail.localhost" }],
        }],
      });
    case "GET /api/v1/me/keys":
      return json({ keys: [{ key_id: "k1", kind: "user", label: "thunderbird", lifecycle: "permanent", owner: "jianf", active: true, created_at: "2026-12-01T09:00:00Z", expires_at: null, revoked_at: null, used_at: null }] });
    case "GET /api/v1/me/permissions":
      return json({ mails: [permissionMail], total: 1 });
    case "GET /api/v1/me/mail/m1":
      return json(base);
    case "GET /api/v1/me/mail/m2":
      return json(permissionMail);
    case "POST /api/v1/me/mail/m1/read":
      return json({ mail_id: "m1", status: "read" });
    case "GET /api/v1/me/sessions/s1":
      return json({ session, mails: [base, permissionMail] });
    case "GET /api/v1/me/sessions/s1/proposals":
      return json({ proposals: [] });
    case "GET /api/v1/me/mail/m1/tree":
    case "GET /api/v1/me/mail/m2/tree":
      return json({ mail_id: "m1", direction: "around", mails: [], root_mail_id: "m1", next_cursor_up: null, next_cursor_down: null });
    case "GET /api/v1/me/addresses/suggest":
      return json({
        candidates: [
          { address: "builder@ModelRouter", email: "builder@agentmail.localhost", kind: "agent", description: "/home/u/ModelRouter · online", session_id: null },
          { address: "builder@ModelRouter.fix-leak", email: "x", kind: "conversation", description: "Fix the leak · waiting", session_id: "s1" },
        ].filter((c) => c.address.startsWith(url.searchParams.get("q") ?? "")),
      });
    case "POST /api/v1/me/mail/send": {
      const body = bodies[path] as { to: string };
      if (body.to === "builder@Nowhere") {
        return json({ error: { code: "unknown_workspace", message: "agent 'builder' has no workspace 'Nowhere'" } }, 422);
      }
      return json({ mail_id: "m9", session_id: "s9", session_alias: "new-one", message_id: "<m9@x>", budget_limit: 5, budget_used: 0, budget_remaining: 5, created_at: "" });
    }
    case "POST /api/v1/me/drafts":
      return json({ draft_id: "d1", to: null, to_email: null, cc: [], cc_email: [], subject: "", body: "", body_preview: "", reply_to: null, session_alias: null, budget: null, created_at: "", updated_at: "" }, 201);
    case "DELETE /api/v1/me/drafts/d1":
      return json({ draft_id: "d1", status: "deleted" });
    case "POST /api/v1/me/permission/decide":
      return json({ status: "decided", mail_id: "m2", decision: "approve", action_sha256: permissionMail.action_sha256 });
    default:
      return json({ error: { code: "not_found", message: `no fixture for ${path}` } }, 404);
  }
}


/** Replace fetch with the fake gateway, signed in, with nothing recorded yet. */
export function installFakeGateway(): void {
  gateway.signedIn = true;
  calls.length = 0;
  for (const key of Object.keys(bodies)) delete bodies[key];
  vi.stubGlobal("fetch", vi.fn(async (input: Request) => answer(input)));
}
