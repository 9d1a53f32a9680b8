/**
 * The middle column while searching: the results of `GET /me/search`,
 * virtualised like the mail list, the next page loading as the end scrolls
 * into view (or from the button at the end, for keyboards and screen readers).
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { SearchHit } from "@/api";
import { Button } from "@/components/Button";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import type { SearchState } from "../hooks/useSearch";
import { queryTerms } from "../hooks/queryTerms";
import { SearchHitRow } from "./SearchHitRow";

/** Start loading the next page this many pixels before the end is reached. */
const NEAR_END_PX = 400;

export interface SearchResultsProps {
  search: SearchState;
  selectedId: string | null;
  onOpen: (hit: SearchHit) => void;
}

export function SearchResults({ search, selectedId, onOpen }: SearchResultsProps) {
  const { t, i18n } = useTranslation();
  const scroller = useRef<HTMLDivElement>(null);
  const { hits } = search;
  const terms = useMemo(() => queryTerms(search.q), [search.q]);
  const virtualizer = useVirtualizer({
    count: hits.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 84,
    overscan: 8,
    initialRect: { width: 380, height: typeof window === "undefined" ? 800 : window.innerHeight },
    getItemKey: (index) => hits[index]?.mail_id ?? index,
  });
  const selectedIndex = hits.findIndex((hit) => hit.mail_id === selectedId);
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);

  // A first page shorter than the column leaves nothing to scroll: load on until it fills.
  const { hasMore, loadingMore, loadMore } = search;
  useEffect(() => {
    const element = scroller.current;
    if (element && hasMore && !loadingMore && element.scrollHeight > 0 && element.scrollHeight <= element.clientHeight) {
      loadMore();
    }
  }, [hits.length, hasMore, loadingMore, loadMore]);

  if (search.error) return <ErrorNote error={search.error} className="m-3" />;
  if (search.pending && hits.length === 0) return <Loading />;
  if (hits.length === 0) {
    return <EmptyState title={t("search.none", { q: search.q })} hint={t("search.noneHint")} />;
  }
  const count = new Intl.NumberFormat(i18n.language).format(search.total);
  return (
    <div
      ref={scroller}
      className="min-h-0 flex-1 overflow-y-auto"
      role="region"
      // Not "Search …": the box alone is named Search, so a lookup by that label finds one element.
      aria-label={t("search.results")}
      onScroll={(event) => {
        const element = event.currentTarget;
        if (element.scrollHeight - element.scrollTop - element.clientHeight < NEAR_END_PX) loadMore();
      }}
    >
      <p role="status" className="px-3 py-1 text-xs text-muted">
        {search.totalExact ? t("search.count", { count: search.total, formatted: count }) : t("search.countCapped", { formatted: count })}
      </p>
      <ul className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const hit = hits[item.index];
          if (!hit) return null;
          return (
            <li
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="absolute top-0 left-0 w-full"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              <SearchHitRow hit={hit} terms={terms} selected={hit.mail_id === selectedId} onOpen={onOpen} />
            </li>
          );
        })}
      </ul>
      {search.hasMore ? (
        <div className="flex justify-center p-3">
          <Button onClick={loadMore} disabled={search.loadingMore}>
            {search.loadingMore ? t("common.loading") : t("search.more")}
          </Button>
        </div>
      ) : null}
    </div>
  );
}
