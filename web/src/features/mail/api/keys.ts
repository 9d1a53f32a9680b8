import type { Folder } from "@/lib/router";

/** Query keys of mail: one factory, so the live stream can invalidate exactly what changed. */
export const mailKeys = {
  all: ["mail"] as const,
  lists: () => [...mailKeys.all, "list"] as const,
  list: (folder: Folder) => [...mailKeys.lists(), folder] as const,
  unreadCount: () => [...mailKeys.all, "unread-count"] as const,
  details: () => [...mailKeys.all, "detail"] as const,
  detail: (mailId: string) => [...mailKeys.details(), mailId] as const,
};
