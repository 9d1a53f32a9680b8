import type { IconName } from "@/components/iconNames";
import { routePath, type Route } from "@/lib/router";

export interface NavItem {
  id: string;
  labelKey: string;
  icon: IconName;
  route: Route;
  count?: "unread" | "decisions" | "queue";
  adminOnly?: boolean;
}

export const NAV_ITEMS: NavItem[] = [
  { id: "queue", labelKey: "nav.queue", icon: "queue", route: { view: "queue" }, count: "queue" },
  { id: "inbox", labelKey: "nav.inbox", icon: "inbox", route: { view: "mail", folder: "inbox", mailId: null }, count: "unread" },
  { id: "decisions", labelKey: "nav.decisions", icon: "decisions", route: { view: "decisions", mailId: null }, count: "decisions" },
  { id: "sent", labelKey: "nav.sent", icon: "sent", route: { view: "mail", folder: "sent", mailId: null } },
  { id: "drafts", labelKey: "nav.drafts", icon: "drafts", route: { view: "mail", folder: "drafts", mailId: null } },
  { id: "archive", labelKey: "nav.archive", icon: "archive", route: { view: "mail", folder: "archive", mailId: null } },
  { id: "trash", labelKey: "nav.trash", icon: "trash", route: { view: "mail", folder: "trash", mailId: null } },
  { id: "conversations", labelKey: "nav.conversations", icon: "conversations", route: { view: "conversations", sessionId: null } },
  { id: "agents", labelKey: "nav.agents", icon: "agents", route: { view: "agents" } },
  { id: "admin", labelKey: "nav.admin", icon: "admin", route: { view: "admin" }, adminOnly: true },
  { id: "account", labelKey: "nav.account", icon: "account", route: { view: "account" } },
];

/** The places before the user's own folders (the gateway's, down to Trash) and after them. */
export function aroundFolders(items: NavItem[]): [NavItem[], NavItem[]] {
  const at = items.findIndex((item) => item.id === "trash") + 1;
  return [items.slice(0, at), items.slice(at)];
}

export function activeNavId(route: Route): string {
  switch (route.view) {
    case "mail":
      return route.folder;
    case "folder":
      return "folders";
    case "login":
      return "inbox";
    default:
      return route.view;
  }
}

export const hrefOf = (item: NavItem) => routePath(item.route);
