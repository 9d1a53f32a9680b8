/**
 * The line under To that says where the mail goes, before it goes: a new
 * conversation, the default conversation of me and that address (and how many
 * rounds its agent has left), the conversation an alias names, or the one of the
 * mail I answer. It reads the gateway's routing (`reaches` of the address check);
 * it never changes the address.
 */
import { useTranslation } from "react-i18next";
import type { AddressReach, ReachedConversation } from "@/api";
import { budgetLevel } from "@/components/BudgetBadge";

const LEVEL_STYLE = { normal: "text-muted", low: "text-warn", exhausted: "text-danger" } as const;

export function AddressReachLine({ reach, address, id }: { reach: AddressReach; address: string; id?: string }) {
  const { t } = useTranslation();
  const conversation = reach.conversation;
  let text: string;
  if (reach.by === "new") text = t("compose.reach.new");
  else if (!conversation) text = t("compose.reach.defaultFirst", { address });
  else {
    const name = conversation.session_alias
      ? `#${conversation.session_alias}`
      : t("compose.reach.subject", { subject: conversation.subject });
    text = t(`compose.reach.${reach.by}`, { name });
  }
  return (
    <p id={id} data-reach={reach.by} className="text-sm break-words text-muted">
      {text}
      {conversation?.status === "completed" ? ` · ${t("compose.reach.closed")}` : null}
      {conversation ? <Rounds conversation={conversation} /> : null}
    </p>
  );
}

function Rounds({ conversation }: { conversation: ReachedConversation }) {
  const { t } = useTranslation();
  const { budget_limit: limit, budget_remaining: left } = conversation;
  if (limit === "unlimited" || left === "unlimited") return <> · {t("compose.reach.unlimited")}</>;
  return (
    <>
      {" · "}
      <span className={`tabular-nums ${LEVEL_STYLE[budgetLevel(left)]}`}>{t("compose.reach.rounds", { left, limit })}</span>
    </>
  );
}
