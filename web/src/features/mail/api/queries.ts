import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import type { ListedMail } from "@/api";
import type { Mailbox } from "@/lib/router";
import { sdk } from "@/lib/sdk";
import { mailKeys } from "./keys";

/** The first page fills the screen quickly; later ones are bigger (the API's most), so
 * scrolling a long folder to its end asks the gateway less often. Pages are list rows
 * (`…/rows`): what a row shows, no bodies. */
export const PAGE = 50;
export const NEXT_PAGE = 500;

export interface FolderPage {
  mails: ListedMail[];
  hasMore: boolean;
}

async function listFolder(folder: Mailbox, offset: number): Promise<FolderPage> {
  const limit = offset === 0 ? PAGE : NEXT_PAGE;
  const page = (list: { rows: ListedMail[]; has_more: boolean }): FolderPage => ({ mails: list.rows, hasMore: list.has_more });
  if (typeof folder !== "string") return page(await sdk.inboxRows({ folder_id: folder.folderId, status: "all", limit, offset }));
  switch (folder) {
    case "inbox":
      return page(await sdk.inboxRows({ status: "all", limit, offset }));
    case "archive":
      return page(await sdk.inboxRows({ status: "archived", limit, offset }));
    case "trash":
      return page(await sdk.inboxRows({ status: "deleted", limit, offset }));
    case "sent":
      return page(await sdk.sentRows({ limit, offset }));
    case "drafts":
      return { mails: [], hasMore: false }; // drafts have their own listing (compose feature)
  }
}

/** A folder page by page (newest first): the list asks for the next as its end nears. */
export const folderQuery = (folder: Mailbox) =>
  infiniteQueryOptions({
    queryKey: mailKeys.list(folder),
    queryFn: ({ pageParam }) => listFolder(folder, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last: FolderPage, pages: FolderPage[]) =>
      last.hasMore ? pages.reduce((count, page) => count + page.mails.length, 0) : undefined,
  });

export const unreadCountQuery = () =>
  queryOptions({
    queryKey: mailKeys.unreadCount(),
    queryFn: async () => (await sdk.inbox({ status: "unread", limit: 1 })).total,
  });

export const mailQuery = (mailId: string) =>
  queryOptions({ queryKey: mailKeys.detail(mailId), queryFn: () => sdk.mail(mailId) });

/**
 * How often the folder list is asked for again while the page is visible. Folders made,
 * renamed or deleted over IMAP send no event on the stream, so the list polls; it is
 * also asked for whenever the tab comes back into view (from the mail client, say).
 */
export const FOLDERS_POLL_MS = 30_000;

export const foldersQuery = () =>
  queryOptions({
    queryKey: mailKeys.folders(),
    queryFn: async () => (await sdk.folders()).folders,
    refetchInterval: FOLDERS_POLL_MS,
    refetchOnWindowFocus: "always",
  });

/**
 * The ids of a folder's unread mails. A filed mail's `status` is `archived` whether
 * it was read or not, so the folder's unread listing says which ones are (its first
 * page, the API's most: a folder with more unread mail marks the newest 500).
 */
export const folderUnreadQuery = (folderId: string) =>
  queryOptions({
    queryKey: mailKeys.folderUnread(folderId),
    queryFn: async () =>
      (await sdk.inboxRows({ folder_id: folderId, status: "unread", limit: NEXT_PAGE })).rows.map((m) => m.mail_id),
  });
