/**
 * A mail folder: the list (or cards), the reading pane, and the mail shortcuts.
 * Typing in the search box swaps the list for the server's search results
 * (over all my mail, not only this folder); a result opens in the reading pane.
 */
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { limits, type ListedMail, type Session, type User } from "@/api";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { DraftList } from "@/features/compose/components/DraftList";
import { sessionsQuery } from "@/features/conversations/api/queries";
import { folderUnreadQuery, foldersQuery, mailQuery } from "@/features/mail/api/queries";
import { onePerConversation } from "@/features/mail/conversationCards";
import { MailList } from "@/features/mail/components/MailList";
import { ViewToggle } from "@/features/mail/components/ViewToggle";
import { useFolder } from "@/features/mail/hooks/useFolder";
import { useViewMode } from "@/features/mail/hooks/useViewMode";
import { SearchResults } from "@/features/search/components/SearchResults";
import { useSearch } from "@/features/search/hooks/useSearch";
import { mailboxPath, navigate, type Mailbox } from "@/lib/router";
import { useNarrow } from "@/lib/useMediaQuery";
import { ListHeader } from "./ListHeader";
import { MailPane, useMailCommands } from "./MailPane";
import { SplitView } from "./SplitView";
import { useKeyboard } from "./useKeyboard";

const MAX_QUERY = limits.parameters["GET /api/v1/me/search"].q.maxLength;

export function MailboxView({ mailbox, mailId, me }: { mailbox: Mailbox; mailId: string | null; me: User }) {
  const { t } = useTranslation();
  const narrow = useNarrow();
  const [mode, setMode] = useViewMode();
  const [text, setText] = useState("");
  const [cursor, setCursor] = useState<string | null>(mailId);
  const searchRef = useRef<HTMLInputElement>(null);
  const search = useSearch(text);
  // One of the gateway's folders, or null for a folder of my own.
  const folder = typeof mailbox === "string" ? mailbox : null;
  const ownId = typeof mailbox === "string" ? null : mailbox.folderId;
  const list = useFolder(mailbox, folder !== "drafts");
  const ownFolders = useQuery({ ...foldersQuery(), enabled: ownId !== null });
  const ownUnread = useQuery({ ...folderUnreadQuery(ownId ?? ""), enabled: ownId !== null });
  const unreadIds = useMemo(() => new Set(ownUnread.data ?? []), [ownUnread.data]);
  const sessions = useQuery({ ...sessionsQuery(), enabled: mode === "cards" });
  const open = useQuery({ ...mailQuery(mailId ?? ""), enabled: Boolean(mailId) });

  // Cards are conversations: each one's newest mail in the folder stands for it.
  const mails = useMemo(() => (mode === "cards" ? onePerConversation(list.mails) : list.mails), [mode, list.mails]);
  // What j / k walk through: the results while searching, else the folder.
  const shown: { mail_id: string }[] = search.active ? search.hits : mails;
  const bySession = useMemo(() => new Map((sessions.data?.sessions ?? []).map((s) => [s.session_id, s])), [sessions.data]);

  const pathOf = useCallback((id: string | null) => mailboxPath(folder ?? { folderId: ownId ?? "" }, id), [folder, ownId]);
  const openMail = useCallback((id: string) => {
    setCursor(id);
    navigate(pathOf(id));
  }, [pathOf]);
  const close = useCallback(() => navigate(pathOf(null)), [pathOf]);
  const commands = useMailCommands(open.data, close);

  const selected = mailId ?? cursor;
  const move = (step: 1 | -1) => {
    const index = shown.findIndex((m) => m.mail_id === selected);
    const next = shown[Math.max(0, Math.min(shown.length - 1, index + step))];
    if (!next) return;
    if (shown.indexOf(next) >= shown.length - 3) (search.active ? search.loadMore : list.loadMore)();
    if (narrow && !mailId) setCursor(next.mail_id);
    else openMail(next.mail_id);
  };
  useKeyboard({
    j: () => move(1),
    k: () => move(-1),
    Enter: () => selected && openMail(selected),
    Escape: () => mailId && close(),
    r: () => commands.reply("reply"),
    a: () => commands.reply("replyAll"),
    f: () => commands.reply("forward"),
    e: commands.archive,
    "#": commands.remove,
    "/": () => searchRef.current?.focus(),
  });

  const title = folder
    ? t(`nav.${folder}`)
    : (ownFolders.data?.find((f) => f.folder_id === ownId)?.name ?? t("folders.folder"));
  const header = (
    <ListHeader
      title={title}
      label={t("search.label")}
      placeholder={t("search.placeholder")}
      maxLength={MAX_QUERY}
      hint={t("search.hint")}
      value={text}
      onChange={setText}
      inputRef={searchRef}
    >
      {folder !== "drafts" ? <ViewToggle mode={mode} onChange={setMode} /> : null}
    </ListHeader>
  );
  let body;
  if (search.active) body = <SearchResults search={search} selectedId={selected} onOpen={(hit) => openMail(hit.mail_id)} />;
  else if (folder === "drafts") body = <DraftList />;
  else if (list.isPending) body = <Loading />;
  else if (list.isError) {
    // Only a personal folder can be gone from under the list (deleted here or over IMAP).
    const words = folder ? undefined : { codes: { not_found: t("folders.gone") } };
    body = <ErrorNote error={list.error} className="m-4" words={words} />;
  }
  else if (mails.length === 0) body = <EmptyState title={folder ? t(`empty.${folder}`) : t("empty.folder")} />;
  else
    body = (
      <MailList
        mails={mails}
        selectedId={selected}
        mode={mode}
        outgoing={folder === "sent"}
        onOpen={(m) => openMail(m.mail_id)}
        onNearEnd={list.loadMore}
        {...(ownId ? { isUnread: (m: ListedMail) => unreadIds.has(m.mail_id) } : {})}
        sessionOf={(id): Session | undefined => bySession.get(id)}
        me={me.name}
      />
    );
  const detail = mailId ? (
    <MailPane mailId={mailId} me={me} onGone={close} onOpenMail={openMail} />
  ) : narrow ? null : (
    <EmptyState title={t("mail.pick")} hint={t("mail.pickHint")} />
  );
  return (
    <SplitView
      listLabel={title}
      onBack={close}
      list={
        <>
          {header}
          {body}
        </>
      }
      detail={detail}
    />
  );
}
