import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ErrorNote } from "@/components/ErrorNote";
import { KeyIssuer } from "@/components/KeyIssuer";
import { KeyTable } from "@/components/KeyTable";
import { sdk } from "@/lib/sdk";
import { DefaultBudgets } from "./DefaultBudgets";
import { NewUserForm } from "./NewUserForm";

const adminKeys = { users: ["admin", "users"] as const, agentKeys: ["admin", "agent-keys"] as const };

/** Admins: the users (create one) and the agent keys (issue, revoke). */
export function AdminPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: adminKeys.users, queryFn: async () => (await sdk.users()).users });
  const keys = useQuery({ queryKey: adminKeys.agentKeys, queryFn: async () => (await sdk.agentKeys()).keys });
  const refreshKeys = () => queryClient.invalidateQueries({ queryKey: adminKeys.agentKeys });
  return (
    <div className="flex flex-col gap-6 overflow-y-auto p-4 md:p-6">
      <h1 className="text-xl font-semibold">{t("nav.admin")}</h1>
      <section className="flex flex-col gap-3">
        <h2 className="text-lg font-semibold">{t("admin.users")}</h2>
        <NewUserForm onCreated={() => void queryClient.invalidateQueries({ queryKey: adminKeys.users })} />
        {users.isError ? <ErrorNote error={users.error} /> : null}
        <ul className="flex flex-col divide-y divide-line rounded-md border border-line">
          {(users.data ?? []).map((u) => (
            <li key={u.user_id} className="flex flex-wrap gap-3 p-2 text-sm">
              <span className="font-medium">{u.name}</span>
              <span className="font-mono text-muted">{u.email}</span>
              {u.is_admin ? <span className="rounded bg-accent-soft px-1.5 text-xs text-accent">{t("admin.isAdmin")}</span> : null}
            </li>
          ))}
        </ul>
      </section>
      <section className="flex flex-col gap-3">
        <h2 className="text-lg font-semibold">{t("admin.agentKeys")}</h2>
        <p className="text-sm text-muted">{t("admin.agentKeysHint")}</p>
        <KeyIssuer
          onIssue={async (label, lifecycle, expiresIn) => {
            const issued = await sdk.issueAgentKey(label, lifecycle, expiresIn);
            void refreshKeys();
            return issued;
          }}
        />
        {keys.isError ? <ErrorNote error={keys.error} /> : null}
        <KeyTable keys={keys.data ?? []} onRevoke={(id) => void sdk.revokeAgentKey(id).then(refreshKeys)} />
      </section>
      <DefaultBudgets />
    </div>
  );
}
