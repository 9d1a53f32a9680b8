import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import type { SearchHit } from "@/api";
import { useDebouncedValue } from "@/lib/useDebouncedValue";
import { searchQuery } from "../api/queries";

const DEBOUNCE_MS = 250;

/**
 * The server search for what is typed, once typing pauses. `active` as soon
 * as the box has text, so the list switches to results at once; the previous
 * results stay on screen while the next ones load.
 */
export function useSearch(text: string) {
  const q = useDebouncedValue(text.trim(), DEBOUNCE_MS);
  const active = text.trim() !== "";
  const query = useInfiniteQuery({ ...searchQuery(q), enabled: active && q !== "", placeholderData: keepPreviousData });
  const hits: SearchHit[] = useMemo(() => query.data?.pages.flatMap((page) => page.mails) ?? [], [query.data]);
  const first = query.data?.pages[0];
  return {
    active,
    q,
    hits,
    total: first?.total ?? 0,
    totalExact: first?.total_exact !== false,
    /** Waiting for the first answer of this search (debounce included). */
    pending: active && (q !== text.trim() || query.isPending),
    error: query.isError ? query.error : null,
    hasMore: query.hasNextPage,
    loadingMore: query.isFetchingNextPage,
    loadMore: () => {
      if (query.hasNextPage && !query.isFetchingNextPage) void query.fetchNextPage();
    },
  };
}

export type SearchState = ReturnType<typeof useSearch>;
