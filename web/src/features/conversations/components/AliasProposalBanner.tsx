import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/Button";
import { sdk } from "@/lib/sdk";
import { sessionKeys } from "../api/keys";
import { proposalsQuery } from "../api/queries";

/** An agent proposed a better alias: accept (a human rename) or reject (never proposed again). */
export function AliasProposalBanner({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { data } = useQuery(proposalsQuery(sessionId));
  const proposal = data?.[0];
  if (!proposal) return null;
  const decide = async (accept: boolean) => {
    await sdk.decideProposal(sessionId, proposal.proposal_id, accept);
    void queryClient.invalidateQueries({ queryKey: sessionKeys.all });
  };
  return (
    <div role="note" className="flex flex-wrap items-center gap-2 rounded-md border border-accent bg-accent-soft p-2 text-sm">
      <span>
        {t("session.proposal", { name: proposal.proposed_by, alias: proposal.alias })}
        {proposal.reason ? <span className="text-muted"> — {proposal.reason}</span> : null}
      </span>
      <span className="ml-auto flex gap-2">
        <Button variant="primary" onClick={() => void decide(true)}>
          {t("session.accept")}
        </Button>
        <Button onClick={() => void decide(false)}>{t("session.reject")}</Button>
      </span>
    </div>
  );
}
