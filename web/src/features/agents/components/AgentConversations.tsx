import { useTranslation } from "react-i18next";
import { NavLink } from "@/components/NavLink";

/** An open conversation an agent takes part in, as the Agents page lists it. */
export interface AgentConversation {
  sessionId: string;
  alias: string | null;
  subject: string;
  status: "active" | "waiting" | "completed";
}

const SHOWN_CONVERSATIONS = 5;

/** An agent's open conversations on its card, the ones waiting on a human first. */
export function AgentConversations({
  conversations,
  onOpen,
  more,
}: {
  conversations: AgentConversation[];
  onOpen?: (sessionId: string) => void;
  /** The agent's page, with all of its conversations and its activity. */
  more?: string;
}) {
  const { t } = useTranslation();
  if (conversations.length === 0) return null;
  const shown = [...conversations]
    .sort((a, b) => Number(b.status === "waiting") - Number(a.status === "waiting"))
    .slice(0, SHOWN_CONVERSATIONS);
  return (
    <div className="flex flex-col gap-1 border-t border-line pt-2">
      <h3 className="text-xs font-medium text-muted">{t("agents.conversations", { count: conversations.length })}</h3>
      <ul className="flex flex-col">
        {shown.map((c) => (
          <li key={c.sessionId}>
            <button
              type="button"
              onClick={() => onOpen?.(c.sessionId)}
              className="flex min-h-8 w-full items-center gap-2 rounded px-1 text-left text-sm hover:bg-raised max-md:min-h-11"
            >
              {c.alias ? <span className="max-w-[40%] truncate font-mono text-xs text-muted">#{c.alias}</span> : null}
              <span className="min-w-0 flex-1 truncate">{c.subject || t("mail.noSubject")}</span>
              <span className={`ml-auto shrink-0 text-xs whitespace-nowrap ${c.status === "waiting" ? "text-warn" : "text-muted"}`}>
                {t(`session.status.${c.status}`)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {more ? (
        <NavLink href={more} current={false} className="self-start rounded px-1 text-xs text-accent hover:underline max-md:py-3">
          {t("agents.all")}
        </NavLink>
      ) : null}
    </div>
  );
}
