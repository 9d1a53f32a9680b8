// @vitest-environment node
/**
 * The SDK against a real gateway (opt in: skipped unless AGENTMAIL_GATEWAY is set):
 *
 *   AGENTMAIL_GATEWAY=http://127.0.0.1:8180 AGENTMAIL_ADMIN_PASSWORD=… npx vitest run src/api/sdk.gateway.test.ts
 *
 * It makes its own user and agent (unique names), so it can run against any
 * gateway more than once. The browser keeps the cookie; here a tiny jar does.
 */
import { describe, expect, it } from "vitest";
import { ApiError, createSdk } from "@/api";

const BASE = process.env.AGENTMAIL_GATEWAY ?? "";
const ADMIN_PASSWORD = process.env.AGENTMAIL_ADMIN_PASSWORD ?? "";

function sdkWithCookies() {
  let cookie = "";
  const fetch = async (request: Request) => {
    const headers = new Headers(request.headers);
    if (cookie) headers.set("cookie", cookie);
    const response = await globalThis.fetch(new Request(request, { headers }));
    const set = response.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0] ?? "";
    return response;
  };
  return createSdk({ baseUrl: BASE, fetch });
}

async function agentCall<T>(key: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
}

describe.skipIf(!BASE)("the SDK against a running gateway", () => {
  it("covers the human's side of the collaboration loop", async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const human = `web${run}`;
    const agentName = `bot${run}`;
    const admin = sdkWithCookies();
    await admin.login("admin", ADMIN_PASSWORD);
    await admin.createUser(human, "password123", false);
    const enrol = await admin.issueAgentKey(`web test ${run}`, "permanent");
    const agentKey = enrol.key ?? "";
    await agentCall(agentKey, "/api/v1/agent/register", {
      name: agentName,
      workspaces: [{ name: "ModelRouter", path: `/home/u/${run}` }],
      platform: "test",
    });

    expect((await admin.setDefaultBudget(agentName, 7)).default_budget).toBe(7);
    expect((await admin.users()).users.map((u) => u.name)).toContain(human);

    const sdk = sdkWithCookies();
    await expect(sdk.me()).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    expect((await sdk.login(human, "password123")).user.name).toBe(human);
    const to = `${agentName}@ModelRouter`;
    expect((await sdk.suggest(agentName)).candidates.map((c) => c.address)).toContain(to);

    const sent = await sdk.send({ to, subject: "Fix the leak", body: "Please **fix** it.", budget: 3 });
    expect(sent.budget_limit).toBe(3);
    const refused = await sdk.send({ to: `${agentName}@Nowhere`, subject: "x", body: "y" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 422, code: "unknown_workspace" });

    const reply = await agentCall<{ mail_id: string }>(agentKey, "/api/v1/mail/send", {
      to: `${human}@`, subject: "Re: Fix the leak", body: "Done.", reply_to: sent.mail_id,
    });
    const ask = await agentCall<{ mail_id: string }>(agentKey, "/api/v1/permission/request", {
      to: `${human}@`, question: "May I restart?", context: "It hangs.", action: "systemctl restart app",
      reply_to: reply.mail_id, expires_in: "10m",
    });
    expect((await sdk.inbox({ status: "unread", limit: 1 })).total).toBe(2);
    expect((await sdk.permissions({ state: "open" })).mails.map((m) => m.mail_id)).toContain(ask.mail_id);
    const request = await sdk.mail(ask.mail_id);
    expect(request).toMatchObject({ subject: "May I restart?", body: "May I restart?\n\nIt hangs.", permission_state: "open" });
    expect(request.action_sha256).toMatch(/^[0-9a-f]{64}$/);
    const tree = await sdk.tree(ask.mail_id, { direction: "around" });
    expect(tree.mails.map((m) => m.depth)).toEqual([-2, -1, 0]);

    const detail = await sdk.session(sent.session_id);
    expect(detail.session).toMatchObject({ status: "waiting", budget_limit: 3, budget_used: 2, budget_remaining: 1 });
    expect((await sdk.changeSession(sent.session_id, { session_alias: `leak-${run}` })).session_alias).toBe(`leak-${run}`);
    expect((await sdk.changeSession(sent.session_id, { budget_limit: "unlimited" })).budget_limit).toBe("unlimited");

    expect((await sdk.decide(ask.mail_id, "approve", "go ahead")).decision).toBe("approve");
    await expect(sdk.decide(ask.mail_id, "reject")).rejects.toMatchObject({ status: 409, code: "already_decided" });
    expect((await sdk.setMailState(reply.mail_id, "archive")).status).toBe("archived");

    const draft = await sdk.createDraft({ to, subject: "Draft", body: "wip", cc: [] });
    await sdk.saveDraft(draft.draft_id, { to, subject: "Draft 2", body: "wip", cc: [] });
    expect((await sdk.drafts()).drafts[0]?.subject).toBe("Draft 2");
    await sdk.deleteDraft(draft.draft_id);

    const key = await sdk.issueKey("test", "timed", "1h");
    expect(key.key).toMatch(/^amu_/);
    await sdk.revokeKey(key.key_id);
    expect((await sdk.forward(sent.mail_id, { to: `${to}.new`, body: "FYI" })).session_id).not.toBe(sent.session_id);
    await sdk.logout();
    await expect(sdk.me()).rejects.toMatchObject({ status: 401 });
  });
});
