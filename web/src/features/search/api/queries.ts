import { infiniteQueryOptions } from "@tanstack/react-query";
import type { SearchResults } from "@/api";
import { sdk } from "@/lib/sdk";

export const searchKeys = {
  all: ["search"] as const,
  query: (q: string) => [...searchKeys.all, q] as const,
};

export const SEARCH_PAGE = 30;
/** The API's largest `offset` (docs/api.md § Search): no page starts beyond it. */
const MAX_OFFSET = 10_000;

/**
 * The next offset, or undefined when the last page was the end. A capped count
 * (`total_exact: false`, "1,000+") says nothing about the end: a full page does.
 */
export function nextOffset(last: SearchResults, pages: SearchResults[]): number | undefined {
  const loaded = pages.reduce((sum, page) => sum + page.mails.length, 0);
  if (last.mails.length < SEARCH_PAGE || loaded > MAX_OFFSET) return undefined;
  if (last.total_exact !== false && loaded >= last.total) return undefined;
  return loaded;
}

/** `GET /me/search`, a page at a time, best match first. */
export const searchQuery = (q: string) =>
  infiniteQueryOptions({
    queryKey: searchKeys.query(q),
    queryFn: ({ pageParam }) => sdk.search({ q, limit: SEARCH_PAGE, offset: pageParam }),
    initialPageParam: 0,
    getNextPageParam: nextOffset,
  });
