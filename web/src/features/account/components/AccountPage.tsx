import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { User } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { KeyIssuer } from "@/components/KeyIssuer";
import { KeyTable } from "@/components/KeyTable";
import { PreferencesForm } from "@/components/PreferencesForm";
import { sdk } from "@/lib/sdk";

const keysKey = ["me", "keys"] as const;

/** Who I am, my preferences, my user keys for third-party clients, and signing out. */
export function AccountPage({ me, onLogout }: { me: User; onLogout: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: keysKey, queryFn: async () => (await sdk.listKeys()).keys });
  const refresh = () => queryClient.invalidateQueries({ queryKey: keysKey });
  const [testSent, setTestSent] = useState(false);
  const [testError, setTestError] = useState<unknown>(null);
  const sendTest = () => {
    setTestError(null);
    return sdk
      .send({ to: me.address, subject: t("account.testSubject"), body: t("account.testBody"), cc: [] })
      .then(() => setTestSent(true), setTestError);
  };
  return (
    <div className="flex flex-col gap-6 overflow-y-auto p-4 md:p-6">
      <section className="flex flex-col gap-2">
        <h1 className="text-xl font-semibold">{t("nav.account")}</h1>
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
          <dt className="text-muted">{t("account.name")}</dt>
          <dd>{me.name}</dd>
          <dt className="text-muted">{t("account.address")}</dt>
          <dd className="font-mono">{me.address}</dd>
          <dt className="text-muted">{t("account.email")}</dt>
          <dd className="font-mono">{me.email}</dd>
        </dl>
        <p className="text-sm text-muted">{t("account.mailClientHint", { email: me.email, name: me.name })}</p>
        <div className="flex flex-wrap items-center gap-2">
          <Button onClick={() => void sendTest()}>{t("account.sendTest")}</Button>
          {testSent ? (
            <span role="status" className="text-sm text-ok">
              {t("account.testSent")}
            </span>
          ) : null}
          <ErrorNote error={testError} />
        </div>
        <Button className="self-start" onClick={onLogout}>
          {t("account.logout")}
        </Button>
      </section>
      <section className="flex flex-col gap-2">
        <h2 className="text-lg font-semibold">{t("prefs.title")}</h2>
        <PreferencesForm />
      </section>
      <section className="flex flex-col gap-3">
        <h2 className="text-lg font-semibold">{t("account.keys")}</h2>
        <p className="text-sm text-muted">{t("account.keysHint")}</p>
        <KeyIssuer
          onIssue={async (label, lifecycle, expiresIn) => {
            const issued = await sdk.issueKey(label, lifecycle, expiresIn);
            void refresh();
            return issued;
          }}
        />
        {keys.isError ? <ErrorNote error={keys.error} /> : null}
        <KeyTable keys={keys.data ?? []} onRevoke={(id) => void sdk.revokeKey(id).then(refresh)} />
      </section>
    </div>
  );
}
