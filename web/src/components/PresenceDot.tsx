import { useTranslation } from "react-i18next";

/** Online: a filled dot; offline: a hollow ring in the muted colour, which shows on
 * both themes' surfaces (a dot in the border colour vanished in dark mode). */
export function PresenceDot({ online }: { online: boolean }) {
  const { t } = useTranslation();
  const label = online ? t("agents.online") : t("agents.offline");
  return (
    <span
      role="img"
      aria-label={label}
      title={label}
      className={`inline-block size-2 shrink-0 rounded-full ${online ? "bg-ok" : "border-[1.5px] border-muted"}`}
    />
  );
}
