import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ErrorNote } from "@/components/ErrorNote";
import { KeyIssuer } from "@/components/KeyIssuer";
import { KeyTable } from "@/components/KeyTable";
import { WebhookSection } from "@/components/WebhookSection";
import { sdk } from "@/lib/sdk";
import { DefaultBudgets } from "./DefaultBudgets";
import { NewUserForm } from "./NewUserForm";
import { UserRow } from "./UserRow";

const adminKeys = { users: ["admin", "users"] as const, agentKeys: ["admin", "agent-keys"] as const };

/** Admins: the users (create, admin flag, reset a password), the agent keys (issue, register, revoke), the webhooks that hear everyone's events. */
export function AdminPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: adminKeys.users, queryFn: async () => (await sdk.users()).users });
  const keys = useQuery({ queryKey: adminKeys.agentKeys, queryFn: async () => (await sdk.agentKeys()).keys });
  const refreshUsers = () => queryClient.invalidateQueries({ queryKey: adminKeys.users });
  const refreshKeys = () => queryClient.invalidateQueries({ queryKey: adminKeys.agentKeys });
  return (
    <div className="flex flex-col gap-6 overflow-y-auto p-4 md:p-6">
      <h1 className="text-xl font-semibold">{t("nav.admin")}</h1>
      <section className="flex flex-col gap-3">
        <h2 className="text-lg font-semibold">{t("admin.users")}</h2>
        <NewUserForm onCreated={() => void refreshUsers()} />
        {users.isError ? <ErrorNote error={users.error} /> : null}
        <ul className="flex flex-col divide-y divide-line rounded-md border border-line">
          {(users.data ?? []).map((u) => (
            <UserRow key={u.user_id} user={u} onChanged={() => void refreshUsers()} />
          ))}
        </ul>
        {users.data?.length === 1 ? <p className="text-sm text-muted">{t("admin.onlyYou")}</p> : null}
      </section>
      <section className="flex flex-col gap-3">
        <h2 className="text-lg font-semibold">{t("admin.agentKeys")}</h2>
        <p className="text-sm text-muted">{t("admin.agentKeysHint")}</p>
        <KeyIssuer
          clientKey={{ label: t("admin.clientKey"), hint: t("admin.clientKeyHint") }}
          onIssue={async (label, lifecycle, expiresIn, clientKey) => {
            const issued = await sdk.issueAgentKey(label, lifecycle, expiresIn, clientKey);
            void refreshKeys();
            return issued;
          }}
        />
        {keys.isError ? <ErrorNote error={keys.error} /> : null}
        {keys.data ? (
          <KeyTable keys={keys.data} empty={t("keys.noneAgents")} onRevoke={(id) => void sdk.revokeAgentKey(id).then(refreshKeys)} />
        ) : null}
      </section>
      <DefaultBudgets />
      <WebhookSection scope="admin" />
    </div>
  );
}
