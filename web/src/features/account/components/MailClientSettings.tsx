/**
 * What to type into Thunderbird or a phone's mail app: the SMTP and IMAP
 * servers (`GET /me/mail-settings`: the public host and ports when the admin
 * set them, else the bound ones), the user name and the address, each with a
 * copy button.
 */
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { ErrorNote } from "@/components/ErrorNote";
import { Loading } from "@/components/Loading";
import { mailSettingsQuery } from "../api/queries";
import { MailServerBlock } from "./MailServerBlock";
import { SettingRow } from "./SettingRow";

export function MailClientSettings() {
  const { t } = useTranslation();
  const settings = useQuery(mailSettingsQuery());
  if (settings.isPending) return <Loading />;
  if (settings.isError) return <ErrorNote error={settings.error} />;
  const { smtp, imap, username, email, address } = settings.data;
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-muted">{t("account.mailClientHint")}</p>
      <div className="grid gap-3 md:grid-cols-2">
        <MailServerBlock title={t("account.imap")} server={imap} />
        <MailServerBlock title={t("account.smtp")} server={smtp} />
      </div>
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] items-center gap-x-3 gap-y-1 text-sm wrap-anywhere">
        <SettingRow term={t("account.username")} value={username} copyLabel={t("account.username")} />
        <SettingRow term={t("account.email")} value={email} copyLabel={t("account.email")} />
        <SettingRow term={t("account.address")} value={address} copyLabel={t("account.address")} />
      </dl>
    </div>
  );
}
