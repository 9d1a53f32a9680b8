import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { EmptyState } from "@/components/EmptyState";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { permissionsQuery } from "../api/queries";
import { useDecide } from "../hooks/useDecide";
import { PermissionCard } from "./PermissionCard";

/** Every open request addressed to me, oldest first, each decidable in place. */
export function NeedsDecisionList({ me, onOpen }: { me: string; onOpen: (mailId: string) => void }) {
  const { t } = useTranslation();
  const query = useQuery(permissionsQuery("open"));
  const decide = useDecide(me);
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorNote error={query.error} className="m-4" />;
  if (query.data.mails.length === 0) {
    return <EmptyState title={t("permission.noneOpen")} hint={t("permission.noneOpenHint")} />;
  }
  return (
    <ul className="flex flex-col gap-3 overflow-y-auto p-3" aria-label={t("nav.decisions")}>
      {query.data.mails.map((mail) => (
        <li key={mail.mail_id} className="flex flex-col gap-1">
          <PermissionCard
            mail={mail}
            me={me}
            compact
            onDecide={(decision, note) => decide.mutateAsync({ mailId: mail.mail_id, decision, note })}
          />
          <button
            type="button"
            className="self-start text-sm text-accent underline max-md:min-h-11"
            onClick={() => onOpen(mail.mail_id)}
          >
            {t("permission.openMail")}
          </button>
        </li>
      ))}
    </ul>
  );
}
