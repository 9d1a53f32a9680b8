/**
 * `GET /me/search` as the real route answers it (api/routes/search.py,
 * core/mail/search_query.py, core/mail/search.py): the same filters, the same
 * 422 refusals (naming `q`), substring terms, `limit`/`offset` paging and the snippet.
 */
import type { Mail, SearchResults } from "@/api";

const MAX_QUERY_CHARS = 500;
const SNIPPET_CHARS = 160;
const TOKEN = /"([^"]*)"?|(\S+)/g;
const FILTER = /^(from|to|alias|is|has|type):(.*)$/is;
const TYPES: Record<string, string> = {
  permission: "permission_request", permission_request: "permission_request", question: "question",
  normal: "normal", summary: "final_summary", final_summary: "final_summary", forward: "forward",
};

type Refusal = { error: { code: string; message: string; fields: { field: string; code: string; limit?: number }[] } };
type Outcome = { status: 200; body: SearchResults } | { status: 422; body: Refusal };
// As the gateway names `q` in each refusal (core/mail/search_query.py).
const refuse = (message: string, problem: { field: string; code: string; limit?: number }): Outcome => ({
  status: 422,
  body: { error: { code: "invalid_request", message, fields: [problem] } },
});
const name = (address: string) => address.split("@", 1)[0]?.toLowerCase() ?? "";

function snippet(body: string, terms: string[]): string {
  const flat = body.split(/\s+/).filter(Boolean).join(" ");
  const found = terms.map((t) => flat.toLowerCase().indexOf(t.toLowerCase())).filter((i) => i >= 0);
  const start = found.length ? Math.max(0, Math.min(...found) - SNIPPET_CHARS / 4) : 0;
  const piece = flat.slice(start, start + SNIPPET_CHARS);
  return (start ? "…" : "") + piece + (start + SNIPPET_CHARS < flat.length ? "…" : "");
}

export function search(mails: Mail[], params: URLSearchParams): Outcome {
  const q = params.get("q") ?? "";
  if (q.length > MAX_QUERY_CHARS) {
    return refuse(`q: String should have at most ${MAX_QUERY_CHARS} characters`, { field: "q", code: "too_long", limit: MAX_QUERY_CHARS });
  }
  const limit = Number(params.get("limit") ?? 20);
  const offset = Number(params.get("offset") ?? 0);
  const checks: ((mail: Mail) => boolean)[] = [];
  const terms: string[] = [];
  for (const [, phrase, word] of q.matchAll(TOKEN)) {
    const filter = word ? FILTER.exec(word) : null;
    if (!filter) {
      const term = (phrase ?? word ?? "").trim();
      if (term) terms.push(term);
      continue;
    }
    const key = (filter[1] ?? "").toLowerCase();
    const value = (filter[2] ?? "").trim().toLowerCase();
    if (!value) continue;
    if (key === "from") checks.push((m) => name(m.from).includes(name(value)));
    else if (key === "to") checks.push((m) => [m.to, ...m.cc].some((a) => name(a).includes(name(value))));
    else if (key === "alias") checks.push((m) => m.session_alias === value);
    else if (key === "is" && (value === "unread" || value === "read")) checks.push((m) => (m.status === "unread") === (value === "unread"));
    else if (key === "has" && value === "attachment") checks.push((m) => (m.attachments ?? []).length > 0);
    else if (key === "type" && TYPES[value]) checks.push((m) => m.mail_type === TYPES[value]);
    else {
      return refuse(
        `unknown search filter ${key}:${filter[2]?.trim()}: use from:, to:, alias:, is:unread, is:read, ` +
          "has:attachment, type:permission|question|summary|forward|normal",
        { field: "q", code: "format" },
      );
    }
  }
  if (terms.length === 0 && checks.length === 0) return { status: 200, body: { mails: [], total: 0, total_exact: true } };
  const text = (m: Mail) => `${m.subject}\n${m.body ?? m.body_preview}\n${m.from} ${m.to} ${m.cc.join(" ")}`.toLowerCase();
  const found = mails
    .filter((m) => terms.every((t) => text(m).includes(t.toLowerCase())) && checks.every((check) => check(m)))
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
  const page = found.slice(offset, offset + limit).map((m) => ({
    ...m, body: null, snippet: snippet(m.body ?? m.body_preview, terms),
  }));
  return { status: 200, body: { mails: page, total: found.length, total_exact: true } };
}
