/** Admins: each agent's default round-trip budget for new conversations. */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Agent } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { sdk } from "@/lib/sdk";

const key = ["admin", "agents"] as const;

function BudgetRow({ agent, onSaved }: { agent: Agent; onSaved: () => void }) {
  const { t } = useTranslation();
  const id = useId();
  const [value, setValue] = useState(String(agent.default_budget));
  const [error, setError] = useState<unknown>(null);
  return (
    <li className="flex flex-wrap items-center gap-2 p-2 text-sm">
      <label htmlFor={id} className="min-w-32 font-medium wrap-anywhere">
        {agent.agent_name}
      </label>
      <input
        id={id}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        list={`${id}-choices`}
        className="min-h-9 w-32 rounded-md border border-line bg-canvas px-2 max-md:min-h-11"
      />
      <datalist id={`${id}-choices`}>
        <option value="20" />
        <option value="unlimited" />
      </datalist>
      <Button
        onClick={() => {
          const n = Number.parseInt(value, 10);
          const budget = value.trim() === "unlimited" ? "unlimited" : n;
          setError(null);
          sdk.setDefaultBudget(agent.agent_name, budget).then(onSaved, setError);
        }}
      >
        {t("common.save")}
      </Button>
      <ErrorNote error={error} className="w-full" />
    </li>
  );
}

export function DefaultBudgets() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const agents = useQuery({ queryKey: key, queryFn: async () => (await sdk.agents()).agents });
  const list = agents.data ?? [];
  return (
    <section className="flex flex-col gap-2">
      <h2 className="text-lg font-semibold">{t("admin.defaultBudgets")}</h2>
      <p className="text-sm text-muted">{t("admin.defaultBudgetsHint")}</p>
      {agents.isError ? <ErrorNote error={agents.error} /> : null}
      {list.length === 0 && !agents.isPending ? <p className="text-sm text-muted">{t("agents.none")}</p> : null}
      <ul className="flex flex-col divide-y divide-line rounded-md border border-line">
        {list.map((agent) => (
          <BudgetRow key={agent.agent_id} agent={agent} onSaved={() => void queryClient.invalidateQueries({ queryKey: ["agents"] })} />
        ))}
      </ul>
    </section>
  );
}
