import { useInfiniteQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { ListedMail } from "@/api";
import type { Mailbox } from "@/lib/router";
import { folderQuery } from "../api/queries";

/**
 * A folder's mail as one list, loaded a page at a time: a 10,000-mail inbox
 * shows its newest 50 at once and the rest as the list is scrolled (the list
 * is virtualised, so the DOM holds only the rows on screen either way). A mail
 * that arrives meanwhile shifts the offsets by one: the same mail can come in
 * two pages, and is shown once.
 */
export function useFolder(folder: Mailbox, enabled: boolean) {
  const query = useInfiniteQuery({ ...folderQuery(folder), enabled });
  const mails: ListedMail[] = useMemo(() => {
    const seen = new Set<string>();
    return (query.data?.pages ?? []).flatMap((page) =>
      page.mails.filter((mail) => !seen.has(mail.mail_id) && Boolean(seen.add(mail.mail_id))),
    );
  }, [query.data]);
  return {
    mails,
    isPending: query.isPending,
    isError: query.isError,
    error: query.error,
    loadMore: () => {
      if (query.hasNextPage && !query.isFetchingNextPage) void query.fetchNextPage();
    },
  };
}
