import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { User } from "@/api";
import { EmptyState } from "@/components/EmptyState";
import { NotificationToggle } from "@/components/NotificationToggle";
import { permissionsQuery } from "@/features/approvals/api/queries";
import { NeedsDecisionList } from "@/features/approvals/components/NeedsDecisionList";
import { navigate } from "@/lib/router";
import { useNarrow } from "@/lib/useMediaQuery";
import { MailPane } from "./MailPane";
import { SplitView } from "./SplitView";

/** "Needs decision": every open request, oldest first, as rows; the chosen one (on a wide
 * screen the oldest, until another is picked) opens as its mail, with its card, in the pane. */
export function DecisionsView({ mailId, me }: { mailId: string | null; me: User }) {
  const { t } = useTranslation();
  const narrow = useNarrow();
  const open = (id: string) => navigate(`/decisions/${encodeURIComponent(id)}`);
  const close = () => navigate("/decisions");
  const oldest = useQuery(permissionsQuery("open")).data?.mails[0]?.mail_id ?? null;
  const shown = mailId ?? (narrow ? null : oldest);
  return (
    <SplitView
      listLabel={t("nav.decisions")}
      onBack={close}
      list={
        <>
          <header className="flex items-center gap-2 border-b border-line p-3">
            <h1 className="text-lg font-semibold">{t("nav.decisions")}</h1>
            <span className="ml-auto">
              <NotificationToggle />
            </span>
          </header>
          <NeedsDecisionList selected={shown} onOpen={open} />
        </>
      }
      detail={
        shown ? (
          <MailPane key={shown} mailId={shown} me={me} onGone={close} onOpenMail={(id) => navigate(`/inbox/${encodeURIComponent(id)}`)} />
        ) : narrow ? null : (
          <EmptyState title={t("permission.pick")} />
        )
      }
    />
  );
}
