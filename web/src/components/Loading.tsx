import { useTranslation } from "react-i18next";

export function Loading() {
  const { t } = useTranslation();
  return (
    <p role="status" aria-live="polite" className="p-4 text-sm text-muted">
      {t("common.loading")}
    </p>
  );
}
