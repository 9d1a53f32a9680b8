import { useTranslation } from "react-i18next";
import { formatCountdown } from "@/lib/format";

/** "Expires in 4:09", updated every second by the card that owns the clock. */
export function ExpiryCountdown({ expiresAt, now }: { expiresAt: string; now: number }) {
  const { t } = useTranslation();
  const left = (new Date(expiresAt).getTime() - now) / 1000;
  const urgent = left < 60;
  return (
    <span className={`text-sm tabular-nums ${urgent ? "text-danger" : "text-muted"}`}>
      <time dateTime={expiresAt}>{t("permission.expiresIn", { time: formatCountdown(left) })}</time>
    </span>
  );
}
