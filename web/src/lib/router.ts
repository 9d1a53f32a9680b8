/**
 * A tiny history router: the app has a handful of flat routes, so a path parser
 * and `navigate()` are all it needs (no router library in the bundle).
 */
import { useSyncExternalStore } from "react";

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener("popstate", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("popstate", listener);
  };
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, "", path);
  else window.history.pushState(null, "", path);
  for (const listener of listeners) listener();
}

export function usePath(): string {
  return useSyncExternalStore(
    subscribe,
    () => window.location.pathname,
    () => "/",
  );
}

export type Folder = "inbox" | "sent" | "archive" | "trash" | "drafts";
/** Where mail is listed: one of the gateway's folders, or a folder of the user's own (by its id,
 * which stays when the folder is renamed). */
export type Mailbox = Folder | { folderId: string };
export type Route =
  | { view: "queue" }
  | { view: "mail"; folder: Folder; mailId: string | null }
  | { view: "folder"; folderId: string; mailId: string | null }
  | { view: "decisions"; mailId: string | null }
  | { view: "conversations"; sessionId: string | null }
  | { view: "agents"; name?: string }
  | { view: "admin" }
  | { view: "account" }
  | { view: "login" };

const FOLDERS: readonly Folder[] = ["inbox", "sent", "archive", "trash", "drafts"];

export function parseRoute(path: string): Route {
  const [head = "", id = null, second = null] = path.split("/").filter(Boolean).map(decodeURIComponent);
  if ((FOLDERS as readonly string[]).includes(head)) {
    return { view: "mail", folder: head as Folder, mailId: id };
  }
  switch (head) {
    case "":
      return { view: "queue" };
    case "folders":
      return id ? { view: "folder", folderId: id, mailId: second } : { view: "mail", folder: "inbox", mailId: null };
    case "decisions":
      return { view: "decisions", mailId: id };
    case "conversations":
      return { view: "conversations", sessionId: id };
    case "agents":
      return id ? { view: "agents", name: id } : { view: "agents" };
    case "admin":
      return { view: "admin" };
    case "account":
      return { view: "account" };
    case "login":
      return { view: "login" };
    default:
      return { view: "mail", folder: "inbox", mailId: null };
  }
}

export function routePath(route: Route): string {
  const tail = (id: string | null) => (id ? `/${encodeURIComponent(id)}` : "");
  switch (route.view) {
    case "queue":
      return "/";
    case "mail":
      return `/${route.folder}${tail(route.mailId)}`;
    case "folder":
      return `/folders/${encodeURIComponent(route.folderId)}${tail(route.mailId)}`;
    case "decisions":
      return `/decisions${tail(route.mailId)}`;
    case "conversations":
      return `/conversations${tail(route.sessionId)}`;
    case "agents":
      return `/agents${tail(route.name ?? null)}`;
    default:
      return `/${route.view}`;
  }
}

export const useRoute = (): Route => parseRoute(usePath());

/** The route of a mailbox's list, or of one mail in it. */
export function mailboxPath(mailbox: Mailbox, mailId: string | null = null): string {
  return typeof mailbox === "string"
    ? routePath({ view: "mail", folder: mailbox, mailId })
    : routePath({ view: "folder", folderId: mailbox.folderId, mailId });
}
