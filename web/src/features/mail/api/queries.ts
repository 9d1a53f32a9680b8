import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import type { Mail } from "@/api";
import type { Folder } from "@/lib/router";
import { sdk } from "@/lib/sdk";
import { mailKeys } from "./keys";

/** The first page fills the screen quickly; later ones are bigger (the API's most), so
 * scrolling a long folder to its end asks the gateway less often. */
export const PAGE = 200;
export const NEXT_PAGE = 500;

export interface FolderPage {
  mails: Mail[];
  total: number;
}

async function listFolder(folder: Folder, offset: number): Promise<FolderPage> {
  const limit = offset === 0 ? PAGE : NEXT_PAGE;
  switch (folder) {
    case "inbox":
      return sdk.inbox({ status: "all", limit, offset });
    case "archive":
      return sdk.inbox({ status: "archived", limit, offset });
    case "trash":
      return sdk.inbox({ status: "deleted", limit, offset });
    case "sent":
      return sdk.sent({ limit, offset });
    case "drafts":
      return { mails: [], total: 0 }; // drafts have their own listing (compose feature)
  }
}

/** A folder page by page (newest first): the list asks for the next as its end nears. */
export const folderQuery = (folder: Folder) =>
  infiniteQueryOptions({
    queryKey: mailKeys.list(folder),
    queryFn: ({ pageParam }) => listFolder(folder, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last: FolderPage, pages: FolderPage[]) => {
      const loaded = pages.reduce((count, page) => count + page.mails.length, 0);
      return last.mails.length > 0 && loaded < last.total ? loaded : undefined;
    },
  });

export const unreadCountQuery = () =>
  queryOptions({
    queryKey: mailKeys.unreadCount(),
    queryFn: async () => (await sdk.inbox({ status: "unread", limit: 1 })).total,
  });

export const mailQuery = (mailId: string) =>
  queryOptions({ queryKey: mailKeys.detail(mailId), queryFn: () => sdk.mail(mailId) });
