/**
 * "Needs you", the home: what waits for me, most urgent first — requests, questions,
 * budgets running out, agents in trouble — each handled in place; then the mailbox.
 */
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import type { User } from "@/api";
import { EmptyState } from "@/components/EmptyState";
import { Loading } from "@/components/Loading";
import { navigate } from "@/lib/router";
import { useWorkQueue } from "./workQueue";
import { useHeldDecisions } from "./useHeldDecisions";
import { AgentsToLook } from "./AgentsToLook";
import { BudgetRaise } from "./BudgetRaise";
import { QueueQuestion } from "./QueueQuestion";
import { QueueRequest } from "./QueueRequest";
import { UndoToast } from "./UndoToast";

function Section({ title, children, count }: { title: string; count: number; children: ReactNode }) {
  if (count === 0) return null;
  return (
    <section aria-label={title} className="flex flex-col gap-2">
      <h2 className="text-sm font-semibold tracking-wide text-muted uppercase">
        {title} <span className="font-normal">({count})</span>
      </h2>
      {children}
    </section>
  );
}

export function WorkQueueView({ me }: { me: User }) {
  const { t } = useTranslation();
  const queue = useWorkQueue();
  const { store, held } = useHeldDecisions();
  const heldIds = new Set(held.map((decision) => decision.mailId));
  const requests = queue.requests.filter((mail) => !heldIds.has(mail.mail_id));
  const agents = queue.failures.length + queue.offline.length;
  const empty = requests.length + queue.questions.length + queue.budgets.length + agents === 0;

  return (
    <div className="flex min-h-0 flex-1 flex-col overflow-y-auto">
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-6 p-3 md:p-6">
        <h1 className="text-lg font-semibold">{t("nav.queue")}</h1>
        {queue.pending ? <Loading /> : null}
        <Section title={t("queue.requests")} count={requests.length}>
          {requests.map((mail) => (
            <QueueRequest
              key={mail.mail_id}
              mail={mail}
              me={me.name}
              onHold={(decision, note) => store.hold({ mailId: mail.mail_id, decision, note })}
            />
          ))}
        </Section>
        <Section title={t("queue.questions")} count={queue.questions.length}>
          {queue.questions.map((mail) => (
            <QueueQuestion key={mail.mail_id} mail={mail} me={me.name} />
          ))}
        </Section>
        <Section title={t("queue.budgets")} count={queue.budgets.length}>
          {queue.budgets.map((session) => (
            <BudgetRaise key={session.session_id} session={session} />
          ))}
        </Section>
        <Section title={t("queue.agents")} count={agents}>
          <AgentsToLook failures={queue.failures} offline={queue.offline} />
        </Section>
        {empty && !queue.pending ? <EmptyState title={t("queue.empty")} hint={t("queue.emptyHint")} /> : null}
        <a
          href="/inbox"
          onClick={(e) => {
            e.preventDefault();
            navigate("/inbox");
          }}
          className="self-start text-sm text-accent underline max-md:min-h-11"
        >
          {t("nav.inbox")} →
        </a>
      </div>
      <UndoToast held={held} onUndo={(mailId) => store.undo(mailId)} />
    </div>
  );
}
