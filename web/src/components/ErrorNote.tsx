import { useTranslation } from "react-i18next";
import { errorText, type ErrorWords } from "@/lib/errorText";

/** An error as the user reads it: the API's refusal in their language (src/lib/errorText.ts). */
export function ErrorNote({ error, className = "", id, words }: { error: unknown; className?: string; id?: string; words?: ErrorWords }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <p id={id} role="alert" className={`rounded-md border border-danger bg-danger-soft px-3 py-2 text-sm text-danger ${className}`}>
      {errorText(error, t, words)}
    </p>
  );
}
