import { useTranslation } from "react-i18next";
import type { MailServer } from "@/api";
import { SettingRow } from "./SettingRow";

type Security = NonNullable<MailServer["security"]>;

/** One server (IMAP or SMTP): host, the recommended port and its security, the other ports offered. */
export function MailServerBlock({ title, server }: { title: string; server: MailServer }) {
  const { t } = useTranslation();
  const security = (s: Security) => t(`account.security.${s}`);
  const others = server.ports.filter((p) => p.port !== server.port);
  return (
    <section aria-label={title} className="flex flex-col gap-1 rounded-md border border-line p-3">
      <h3 className="font-medium">{title}</h3>
      {server.port === null ? (
        <p className="text-sm text-muted">{t("account.serverOff")}</p>
      ) : (
        <dl className="grid grid-cols-[auto_minmax(0,1fr)] items-center gap-x-3 gap-y-1 text-sm wrap-anywhere">
          <SettingRow term={t("account.host")} value={server.host} copyLabel={`${title} ${t("account.host")}`} />
          <SettingRow term={t("account.port")} value={String(server.port)} copyLabel={`${title} ${t("account.port")}`} />
          <div className="contents">
            <dt className="text-muted">{t("account.security.label")}</dt>
            <dd>{server.security ? security(server.security) : null}</dd>
          </div>
          {others.length > 0 ? (
            <div className="contents">
              <dt className="text-muted">{t("account.otherPorts")}</dt>
              <dd>{others.map((p) => `${p.port} (${security(p.security)})`).join(", ")}</dd>
            </div>
          ) : null}
        </dl>
      )}
    </section>
  );
}
