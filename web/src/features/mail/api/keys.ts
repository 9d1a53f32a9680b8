import type { Mailbox } from "@/lib/router";

/** Query keys of mail: one factory, so the live stream can invalidate exactly what changed. */
export const mailKeys = {
  all: ["mail"] as const,
  lists: () => [...mailKeys.all, "list"] as const,
  list: (mailbox: Mailbox) => [...mailKeys.lists(), mailbox] as const,
  unreadCount: () => [...mailKeys.all, "unread-count"] as const,
  details: () => [...mailKeys.all, "detail"] as const,
  detail: (mailId: string) => [...mailKeys.details(), mailId] as const,
  /** The folders of my own with their counts, and which of a folder's mails are unread. */
  folders: () => [...mailKeys.all, "folders"] as const,
  folderUnread: (folderId: string) => [...mailKeys.folders(), "unread", folderId] as const,
};
