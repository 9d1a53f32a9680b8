/**
 * Folders of one's own in the fake gateway, answering as api/routes/folders.py and
 * core/mailboxes (folder_names.py, personal.py, placement.py) do: the same shapes,
 * codes and messages; a mail is in one of the inbox, Archive, Trash or a folder, and
 * the state routes move it as the real ones do (restore goes back where it was).
 */
import type { Mail, MailFolder } from "@/api";
import { rowsOf } from "./fixtures";

type Json = (body: unknown, status?: number) => Response;
type Status = NonNullable<Mail["status"]>;

/** Where a mail I received is: the three flags the store keeps (deliveries). */
interface Placement {
  read: boolean;
  archived: boolean;
  deleted: boolean;
  folder: string | null;
}

const RESERVED = new Set(["inbox", "sent", "drafts", "archive", "trash", "needs decision"]);
let folders: MailFolder[] = [];
let placements = new Map<string, Placement>();
let nextId = 1;

export function resetFakeFolders(): void {
  folders = [];
  placements = new Map();
  nextId = 1;
}

/** Folders the user has already (made elsewhere: another tab, an IMAP client), by name or
 * with mail the fixtures do not hold (`messages`, `unread`). */
export function seedFolders(...seeds: (string | { name: string; messages?: number; unread?: number })[]): MailFolder[] {
  const made = seeds.map((seed) => {
    const { name, messages = 0, unread = 0 } = typeof seed === "string" ? { name: seed } : seed;
    return { folder_id: `f${nextId++}`, name, messages, unread };
  });
  folders.push(...made);
  return made;
}

/** A fixture mail filed in a folder already (as an IMAP client's MOVE leaves it), read or not. */
export function fileInFake(mail: Mail, folderId: string, { unread = false } = {}): void {
  placements.set(mail.mail_id, { read: !unread, archived: true, deleted: false, folder: folderId });
}

export function fakeFolderNames(): string[] {
  return folders.map((f) => f.name).sort();
}

function placementOf(mail: Mail): Placement {
  return placements.get(mail.mail_id) ?? { read: mail.status !== "unread", archived: mail.status === "archived", deleted: mail.status === "deleted", folder: mail.folder_id ?? null };
}

function statusOf(p: Placement): Status {
  return p.deleted ? "deleted" : p.archived ? "archived" : p.read ? "read" : "unread";
}

/** A mail as the store has it now: its status and folder. */
export function placed(mail: Mail): Mail {
  if (mail.status == null) return mail;
  const p = placementOf(mail);
  return { ...mail, status: statusOf(p), folder_id: p.folder };
}

function refuseName(name: string, json: Json, except?: string): Response | null {
  // As core/mailboxes/folder_names.py names the input of each refusal.
  const refuse = (status: number, code: string, message: string, problem: string) =>
    json({ error: { code, message, fields: [{ field: "name", code: problem }] } }, status);
  const levels = name.replace(/\/$/, "").split("/");
  if (levels.some((level) => !level)) return refuse(422, "invalid_request", `a folder name has no empty level: '${name}'`, "format");
  if (/[*%\u0000-\u001f\u007f]/.test(name)) return refuse(422, "invalid_request", "a folder name holds no control character, '*' or '%'", "format");
  if (levels.length === 1 && RESERVED.has(name.toLowerCase())) return refuse(409, "name_taken", `'${name}' is one of the gateway's folders`, "reserved");
  if (folders.some((f) => f.name === name && f.folder_id !== except)) return refuse(409, "name_taken", `you have a folder '${name}' already`, "taken");
  return null;
}

function counted(): MailFolder[] {
  return folders
    .map((f) => {
      const filed = [...placements.values()].filter((p) => p.folder === f.folder_id && !p.deleted);
      return { ...f, messages: f.messages + filed.length, unread: f.unread + filed.filter((p) => !p.read).length };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The folder routes, the folder listing and the state routes; null for anything else. */
export function answerFolders(method: string, url: URL, body: unknown, json: Json, mails: Mail[]): Response | null {
  const path = url.pathname;
  const notFound = (what: string) => json({ error: { code: "not_found", message: `no ${what}` } }, 404);
  if (path === "/api/v1/me/folders") {
    if (method === "GET") return json({ folders: counted() });
    const { name } = body as { name: string };
    const refused = refuseName(name, json);
    if (refused) return refused;
    const [made] = seedFolders(name.replace(/\/$/, ""));
    return json(made, 201);
  }
  const one = /^\/api\/v1\/me\/folders\/([^/]+)$/.exec(path);
  if (one) {
    const id = decodeURIComponent(one[1] ?? "");
    const folder = folders.find((f) => f.folder_id === id);
    if (!folder) return notFound(`folder ${id}`);
    if (method === "PATCH") {
      const { name } = body as { name: string };
      const refused = refuseName(name, json, id);
      if (refused) return refused;
      const before = folder.name;
      for (const f of folders) if (f.name === before || f.name.startsWith(`${before}/`)) f.name = name + f.name.slice(before.length);
      return json(counted().find((f) => f.folder_id === id));
    }
    const moved = [...placements.values()].filter((p) => p.folder === id);
    for (const p of moved) Object.assign(p, { folder: null, archived: true });
    folders = folders.filter((f) => f.folder_id !== id);
    return json({ folder_id: id, moved_to_archive: moved.filter((p) => !p.deleted).length });
  }
  const state = /^\/api\/v1\/me\/mail\/([^/]+)\/(file|read|unread|archive|unarchive|delete|restore)$/.exec(path);
  if (state && method === "POST") {
    const mail = mails.find((m) => m.mail_id === state[1]);
    if (!mail || mail.status == null) return notFound(`mail ${state[1]} in your mailbox`);
    const p = { ...placementOf(mail) };
    switch (state[2]) {
      case "file": {
        const { folder_id } = body as { folder_id: string };
        if (!folders.some((f) => f.folder_id === folder_id)) return notFound(`folder ${folder_id}`);
        Object.assign(p, { archived: true, deleted: false, folder: folder_id });
        placements.set(mail.mail_id, p);
        return json({ mail_id: mail.mail_id, folder_id });
      }
      case "read":
      case "unread":
        p.read = state[2] === "read";
        break;
      case "archive":
      case "unarchive":
        Object.assign(p, { archived: state[2] === "archive", folder: null });
        break;
      default:
        p.deleted = state[2] === "delete";
    }
    placements.set(mail.mail_id, p);
    return json({ mail_id: mail.mail_id, status: statusOf(p) });
  }
  const folderId = url.searchParams.get("folder_id");
  const rows = path === "/api/v1/me/mail/inbox/rows";
  if (method === "GET" && (path === "/api/v1/me/mail/inbox" || rows) && folderId !== null) {
    if (!folders.some((f) => f.folder_id === folderId)) return notFound(`folder ${folderId}`);
    const unreadOnly = url.searchParams.get("status") === "unread";
    const filed = mails
      .filter((m) => {
        const p = placementOf(m);
        return m.status != null && p.folder === folderId && !p.deleted && (!unreadOnly || !p.read);
      })
      .map(placed);
    return json(rows ? rowsOf(filed) : { mails: filed, total: filed.length });
  }
  return null;
}
