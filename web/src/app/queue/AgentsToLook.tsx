/** Agents needing a look: a turn that did not finish (unread), or offline in an open conversation. */
import { useTranslation } from "react-i18next";
import type { Mail } from "@/api";
import { addressName } from "@/lib/format";
import { navigate } from "@/lib/router";
import type { OfflineAgent } from "./workQueue";

function Go({ path, children }: { path: string; children: React.ReactNode }) {
  return (
    <a
      href={path}
      onClick={(e) => {
        e.preventDefault();
        navigate(path);
      }}
      className="flex min-h-11 flex-col justify-center rounded-lg border border-line bg-surface p-3 wrap-anywhere hover:bg-raised"
    >
      {children}
    </a>
  );
}

export function AgentsToLook({ failures, offline }: { failures: Mail[]; offline: OfflineAgent[] }) {
  const { t } = useTranslation();
  return (
    <ul className="flex flex-col gap-2">
      {failures.map((mail) => (
        <li key={mail.mail_id} data-testid="queue-failure">
          <Go path={`/inbox/${encodeURIComponent(mail.mail_id)}`}>
            <span className="text-sm font-medium text-danger">{t("queue.turnFailed", { agent: addressName(mail.from) })}</span>
            <span className="text-sm">{mail.subject}</span>
          </Go>
        </li>
      ))}
      {offline.map(({ name, session }) => (
        <li key={name} data-testid="queue-offline">
          <Go path={`/conversations/${encodeURIComponent(session.session_id)}`}>
            <span className="text-sm font-medium">
              {t("queue.offline", { agent: name, conversation: session.session_alias ? `#${session.session_alias}` : session.subject })}
            </span>
          </Go>
        </li>
      ))}
    </ul>
  );
}
