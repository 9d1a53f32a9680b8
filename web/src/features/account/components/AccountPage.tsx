/**
 * The Account page: who I am, the settings for a mail client with a test
 * mail to myself, my password, my preferences, push notifications, my addresses
 * outside the gateway, my webhooks, my user keys, signing out.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { User } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { KeyIssuer } from "@/components/KeyIssuer";
import { KeyTable } from "@/components/KeyTable";
import { PreferencesForm } from "@/components/PreferencesForm";
import { WebhookSection } from "@/components/WebhookSection";
import { sdk } from "@/lib/sdk";
import { accountKeys, keysQuery } from "../api/queries";
import { MailClientSettings } from "./MailClientSettings";
import { OutsideAddresses } from "./OutsideAddresses";
import { PasswordForm } from "./PasswordForm";
import { PushSection } from "./PushSection";
import { TestMailButton } from "./TestMailButton";

export function AccountPage({ me, onLogout }: { me: User; onLogout: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const keys = useQuery(keysQuery());
  const refresh = () => queryClient.invalidateQueries({ queryKey: accountKeys.keys });
  return (
    <div className="flex flex-col gap-6 overflow-y-auto p-4 md:p-6">
      <section className="flex flex-col gap-2">
        <h1 className="text-xl font-semibold">{t("nav.account")}</h1>
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm wrap-anywhere">
          <dt className="text-muted">{t("account.name")}</dt>
          <dd>{me.name}</dd>
          <dt className="text-muted">{t("account.address")}</dt>
          <dd className="font-mono">{me.address}</dd>
        </dl>
        <Button className="self-start" onClick={onLogout}>
          {t("account.logout")}
        </Button>
      </section>
      <section className="flex flex-col gap-3">
        <h2 className="text-lg font-semibold">{t("account.mailClient")}</h2>
        <MailClientSettings />
        <TestMailButton address={me.address} />
      </section>
      <section className="flex flex-col gap-2">
        <h2 className="text-lg font-semibold">{t("password.title")}</h2>
        <p className="text-sm text-muted">{t("password.hint")}</p>
        <PasswordForm />
      </section>
      <section className="flex flex-col gap-2">
        <h2 className="text-lg font-semibold">{t("prefs.title")}</h2>
        <PreferencesForm />
      </section>
      <PushSection />
      <OutsideAddresses />
      <WebhookSection scope="me" />
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
        {keys.data ? (
          <KeyTable keys={keys.data} empty={t("keys.noneMine")} onRevoke={(id) => void sdk.revokeKey(id).then(refresh)} />
        ) : null}
      </section>
    </div>
  );
}
