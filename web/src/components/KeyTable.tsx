import { useTranslation } from "react-i18next";
import type { Key } from "@/api";
import { formatDateTime } from "@/lib/format";
import { Button } from "./Button";

const CARD = "max-md:flex max-md:flex-wrap max-md:items-center max-md:gap-x-3 max-md:gap-y-1 max-md:py-2";
const CELL = "p-2 max-md:p-0 max-md:text-muted";

/** Keys (never the secret itself) with their state, each revocable while active.
 * On a phone each row is a small card: the label (or key id) on a line of its own,
 * wrapped, then lifecycle, date and state, with Revoke at the end. */
export function KeyTable({ keys, onRevoke, empty }: { keys: Key[]; onRevoke: (keyId: string) => void; empty?: string }) {
  const { t, i18n } = useTranslation();
  if (keys.length === 0) return <p className="text-sm text-muted">{empty ?? t("keys.none")}</p>;
  return (
    <div className="md:overflow-x-auto">
      <table className="w-full text-left text-sm max-md:block">
        <thead className="text-muted max-md:sr-only">
          <tr>
            <th className="p-2 font-medium">{t("keys.label")}</th>
            <th className="p-2 font-medium">{t("keys.lifecycle")}</th>
            <th className="p-2 font-medium">{t("keys.created")}</th>
            <th className="p-2 font-medium">{t("keys.state")}</th>
            <th className="p-2">
              <span className="sr-only">{t("keys.actions")}</span>
            </th>
          </tr>
        </thead>
        <tbody className="max-md:block">
          {keys.map((key) => (
            <tr key={key.key_id} className={`border-t border-line ${CARD}`}>
              <td className="p-2 wrap-anywhere max-md:basis-full max-md:p-0 max-md:font-medium">
                {key.label || <span className="font-mono text-muted">{key.key_id}</span>}
              </td>
              <td className={CELL}>{t(`keys.${key.lifecycle}`)}</td>
              <td className={CELL}>{formatDateTime(key.created_at, i18n.language)}</td>
              <td className={CELL}>{key.active ? t("keys.active") : t("keys.inactive")}</td>
              <td className="p-2 text-right max-md:ml-auto max-md:p-0">
                {key.active ? (
                  <Button variant="danger" onClick={() => onRevoke(key.key_id)}>
                    {t("keys.revoke")}
                    <span className="sr-only"> {key.label || key.key_id}</span>
                  </Button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
