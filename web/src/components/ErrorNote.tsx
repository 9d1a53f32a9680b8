import { useTranslation } from "react-i18next";
import { ApiError } from "@/api";

/** An error as the user reads it: the API's own message when there is one. */
export function ErrorNote({ error, className = "", id }: { error: unknown; className?: string; id?: string }) {
  const { t } = useTranslation();
  if (!error) return null;
  const message =
    error instanceof ApiError
      ? error.code === "network_error"
        ? t("errors.network")
        : error.message
      : error instanceof Error
        ? error.message
        : t("errors.unknown");
  return (
    <p id={id} role="alert" className={`rounded-md border border-danger bg-danger-soft px-3 py-2 text-sm text-danger ${className}`}>
      {message}
    </p>
  );
}
