// @vitest-environment node
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { Mail } from "@/api";
import { permissionKeys } from "@/features/approvals/api/keys";
import { mailKeys } from "@/features/mail/api/keys";
import { applyEvent } from "./liveEvents";

const isInvalid = (client: QueryClient, key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated;

function seeded() {
  const client = new QueryClient();
  client.setQueryData(mailKeys.list("inbox"), { mails: [], total: 0 });
  client.setQueryData(mailKeys.unreadCount(), 0);
  client.setQueryData(permissionKeys.list("open"), { mails: [], total: 0 });
  client.setQueryData(mailKeys.detail("m1"), { mail_id: "m1", permission_state: "open" } as Mail);
  return client;
}

describe("applyEvent", () => {
  it("new_mail invalidates the listings and the unread count", () => {
    const client = seeded();
    applyEvent(client, "new_mail", {
      mail_id: "m2", session_id: "s1", session_alias: null, from: "pi@root", subject: "hi",
      mail_type: "normal", auto: false, created_at: "2026-12-01T10:00:00Z",
    });
    expect(isInvalid(client, mailKeys.list("inbox"))).toBe(true);
    expect(isInvalid(client, mailKeys.unreadCount())).toBe(true);
    expect(isInvalid(client, permissionKeys.list("open"))).toBe(false);
  });

  it("permission_decision patches the open mail, so its card turns decided at once", () => {
    const client = seeded();
    applyEvent(client, "permission_decision", {
      mail_id: "m1", session_id: "s1", state: "decided", decision: "approve", note: "ok",
      decided_by: "jianf", decided_at: "2026-12-01T10:01:00Z", action_sha256: null,
    });
    expect(client.getQueryData<Mail>(mailKeys.detail("m1"))).toMatchObject({
      permission_state: "decided", decision: "approve", decision_note: "ok", decided_by: "jianf",
    });
    expect(isInvalid(client, permissionKeys.list("open"))).toBe(true);
  });

  it("resync invalidates everything", () => {
    const client = seeded();
    applyEvent(client, "resync", {});
    for (const key of [mailKeys.list("inbox"), mailKeys.unreadCount(), permissionKeys.list("open")]) {
      expect(isInvalid(client, key)).toBe(true);
    }
  });
});
