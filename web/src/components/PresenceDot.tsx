import { useTranslation } from "react-i18next";

export function PresenceDot({ online }: { online: boolean }) {
  const { t } = useTranslation();
  const label = online ? t("agents.online") : t("agents.offline");
  return (
    <span
      role="img"
      aria-label={label}
      title={label}
      className={`inline-block size-2 rounded-full ${online ? "bg-ok" : "bg-line"}`}
    />
  );
}
