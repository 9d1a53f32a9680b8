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
    // As a browser sends it: the gateway refuses a cookie request from another origin (api/csrf.py).
    headers.set("origin", new URL(BASE).origin);
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

  it("answers search, the address check, the mail settings and the password change as the fake gateway says", async () => {
    const run = Math.random().toString(36).slice(2, 8);
    const human = `srch${run}`;
    const admin = sdkWithCookies();
    await admin.login("admin", ADMIN_PASSWORD);
    await admin.createUser(human, "password123", false);
    const sdk = sdkWithCookies();
    await sdk.login(human, "password123");

    const sent = await sdk.send({ to: `${human}@`, subject: `Deploy ${run}`, body: `the deploy of /srv/app-${run} failed`, cc: [] });
    const found = await sdk.search({ q: `app-${run}`, limit: 30, offset: 0 });
    expect(found).toMatchObject({ total: 1, total_exact: true });
    expect(found.mails[0]).toMatchObject({ mail_id: sent.mail_id, session_alias: sent.session_alias });
    expect(found.mails[0]?.snippet).toContain(`/srv/app-${run}`);
    expect((await sdk.search({ q: `from:${human} deploy` })).total).toBe(1);
    expect((await sdk.search({ q: "kubernetes-never-written" })).mails).toEqual([]);
    await expect(sdk.search({ q: "is:maybe" })).rejects.toMatchObject({ status: 422, message: expect.stringContaining("unknown search filter is:maybe") });
    await expect(sdk.search({ q: "x".repeat(501) })).rejects.toMatchObject({ status: 422, message: "q: String should have at most 500 characters" });

    expect(await sdk.checkAddress(`${human}@`)).toMatchObject({ deliverable: true, kind: "human", error: null });
    expect(await sdk.checkAddress(`nobody${run}@`)).toMatchObject({
      deliverable: false, error: { code: "unknown_recipient", message: `undeliverable: nobody is called 'nobody${run}'` },
    });

    const settings = await sdk.mailSettings();
    expect(settings).toMatchObject({ username: human, address: `${human}@` });
    expect(settings.imap.ports.length).toBeGreaterThan(0);

    const sessions = await sdk.sessions({ limit: 10 });
    expect(sessions.sessions[0]?.latest).toMatchObject({ mail_id: sent.mail_id, excerpt: expect.stringContaining("deploy") });
    expect(sessions.sessions[0]?.participant_details).toEqual([{ name: human, kind: "human", online: true }]);

    await expect(sdk.changePassword("password123", "short")).rejects.toMatchObject({
      status: 422, message: "new_password: String should have at least 8 characters",
    });
    await expect(sdk.changePassword("wrong-password", "a-longer-secret")).rejects.toMatchObject({
      status: 401, message: "wrong user name or password",
    });
    expect(await sdk.changePassword("password123", "a-longer-secret")).toEqual({ status: "changed" });
    let throttled: unknown = null;
    for (let i = 0; i < 20 && !throttled; i += 1) {
      await sdk.changePassword("wrong-password", "a-longer-secret").catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 429) throttled = e;
      });
    }
    expect(throttled).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/^too many failed logins: try again in \d+ s$/) });
    expect((throttled as ApiError).retryAfter).toBeGreaterThan(0);
  });
});
