import { queryOptions } from "@tanstack/react-query";
import type { Mail } from "@/api";
import type { Folder } from "@/lib/router";
import { sdk } from "@/lib/sdk";
import { mailKeys } from "./keys";

export const PAGE = 200;

async function listFolder(folder: Folder): Promise<{ mails: Mail[]; total: number }> {
  switch (folder) {
    case "inbox":
      return sdk.inbox({ status: "all", limit: PAGE });
    case "archive":
      return sdk.inbox({ status: "archived", limit: PAGE });
    case "trash":
      return sdk.inbox({ status: "deleted", limit: PAGE });
    case "sent":
      return sdk.sent({ limit: PAGE });
    case "drafts":
      return { mails: [], total: 0 }; // drafts have their own listing (compose feature)
  }
}

export const folderQuery = (folder: Folder) =>
  queryOptions({ queryKey: mailKeys.list(folder), queryFn: () => listFolder(folder) });

export const unreadCountQuery = () =>
  queryOptions({
    queryKey: mailKeys.unreadCount(),
    queryFn: async () => (await sdk.inbox({ status: "unread", limit: 1 })).total,
  });

export const mailQuery = (mailId: string) =>
  queryOptions({ queryKey: mailKeys.detail(mailId), queryFn: () => sdk.mail(mailId) });
