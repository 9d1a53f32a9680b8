/**
 * The admin routes of the fake gateway, answering as api/routes/users.py and
 * keys.py do: the last admin keeps the flag (403), a reset password has 8
 * characters or more (422), a client-generated key is registered as given.
 */
const users = () => [
  { user_id: "u0", name: "admin", address: "admin@", email: "admin@agentmail.localhost", is_admin: true, created_at: "" },
  { user_id: "u1", name: "jianf", address: "jianf@", email: "jianf@agentmail.localhost", is_admin: false, created_at: "" },
];
let admins = new Set(["admin"]);

export function resetFakeAdmin(): void {
  admins = new Set(["admin"]);
}

type Json = (body: unknown, status?: number) => Response;

export function answerAdmin(method: string, path: string, body: unknown, json: Json): Response | null {
  const refuse = (status: number, code: string, message: string, fields?: { field: string; code: string; limit?: number }[]) =>
    json({ error: fields ? { code, message, fields } : { code, message } }, status);
  if (method === "GET" && path === "/api/v1/admin/users") {
    return json({ users: users().map((u) => ({ ...u, is_admin: admins.has(u.name) })) });
  }
  const user = /^\/api\/v1\/admin\/users\/([^/]+)(\/password)?$/.exec(path);
  if (user) {
    const name = decodeURIComponent(user[1] ?? "");
    if (!users().some((u) => u.name === name)) return refuse(404, "not_found", `no user named '${name}'`);
    if (method === "POST" && user[2]) {
      const { new_password } = body as { new_password: string };
      if (new_password.length < 8) {
        return refuse(422, "invalid_request", "new_password: String should have at least 8 characters", [
          { field: "new_password", code: "too_short", limit: 8 },
        ]);
      }
      return json({ status: "changed" });
    }
    if (method === "PATCH" && !user[2]) {
      const { is_admin } = body as { is_admin: boolean };
      if (!is_admin && admins.has(name) && admins.size <= 1) {
        return refuse(403, "forbidden", "the last admin keeps the admin flag: make another admin first");
      }
      if (is_admin) admins.add(name);
      else admins.delete(name);
      return json({ ...users().find((u) => u.name === name), is_admin });
    }
  }
  if (method === "GET" && path === "/api/v1/admin/agent-keys") return json({ keys: [] });
  if (method === "POST" && path === "/api/v1/admin/agent-keys") {
    const request = body as { label: string; lifecycle: string; key?: string | null; key_sha256?: string | null };
    // As core/identity/keys.py: a client-made key (given, or by its digest) is never echoed.
    const clientMade = Boolean(request.key || request.key_sha256);
    return json({ key_id: "k9", key: clientMade ? null : "amk_generated_once", lifecycle: request.lifecycle, label: request.label, expires_at: null }, 201);
  }
  return null;
}
