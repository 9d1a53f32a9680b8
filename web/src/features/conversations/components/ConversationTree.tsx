/**
 * The reply tree around a mail (it crosses into forwarded conversations):
 * the first chunk around the mail, then more up or down by cursor.
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { TreeMail } from "@/api";
import { Button } from "@/components/Button";
import { addressName, formatTime } from "@/lib/format";
import { sdk } from "@/lib/sdk";
import { sessionKeys } from "../api/keys";
import { PartyName } from "@/components/PartyName";

type Page = { mails: TreeMail[]; up: string | null; down: string | null };
type Cursor = { direction: "around" } | { direction: "ancestors" | "descendants"; cursor: string };

const LIMIT = 50;

export function ConversationTree({ mailId, onOpen }: { mailId: string; onOpen: (mailId: string) => void }) {
  const { t, i18n } = useTranslation();
  const query = useInfiniteQuery({
    queryKey: [...sessionKeys.all, "tree", mailId],
    initialPageParam: { direction: "around" } as Cursor,
    queryFn: async ({ pageParam }): Promise<Page> => {
      const chunk = await sdk.tree(mailId, { ...pageParam, limit: LIMIT });
      return { mails: chunk.mails, up: chunk.next_cursor_up, down: chunk.next_cursor_down };
    },
    getNextPageParam: (last): Cursor | undefined =>
      last.down ? { direction: "descendants", cursor: last.down } : undefined,
    getPreviousPageParam: (first): Cursor | undefined =>
      first.up ? { direction: "ancestors", cursor: first.up } : undefined,
  });
  const mails = query.data?.pages.flatMap((p) => p.mails) ?? [];
  if (mails.length <= 1 && !query.hasNextPage && !query.hasPreviousPage) return null;
  const minDepth = Math.min(...mails.map((m) => m.depth));
  return (
    <section aria-label={t("tree.label")} className="mt-4 border-t border-line pt-3">
      <h3 className="mb-2 text-sm font-semibold">{t("tree.title")}</h3>
      {query.hasPreviousPage ? (
        <Button variant="ghost" onClick={() => void query.fetchPreviousPage()} disabled={query.isFetchingPreviousPage}>
          {t("tree.earlier")}
        </Button>
      ) : null}
      <ol className="flex flex-col">
        {mails.map((m) => (
          <li key={m.mail_id} style={{ paddingInlineStart: `${Math.min(m.depth - minDepth, 8) * 1}rem` }}>
            <button
              type="button"
              onClick={() => onOpen(m.mail_id)}
              aria-current={m.depth === 0 ? "true" : undefined}
              className={`flex w-full min-h-9 items-center gap-2 rounded px-2 text-left text-sm max-md:min-h-11 ${m.depth === 0 ? "bg-accent-soft font-medium" : "hover:bg-raised"}`}
            >
              <span className="max-w-[35%] shrink-0 truncate" title={addressName(m.from)}>
                <PartyName address={m.from} />
              </span>
              <span className="min-w-12 flex-1 truncate text-muted">{m.subject}</span>
              {m.session_alias ? (
                <span className="max-w-[25%] truncate font-mono text-xs text-muted" title={`#${m.session_alias}`}>
                  #{m.session_alias}
                </span>
              ) : null}
              <span className="ml-auto shrink-0 text-xs text-muted">{formatTime(m.created_at, i18n.language)}</span>
            </button>
          </li>
        ))}
      </ol>
      {query.hasNextPage ? (
        <Button variant="ghost" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {t("tree.later")}
        </Button>
      ) : null}
    </section>
  );
}
