import { useTranslation } from "react-i18next";
import type { Key } from "@/api";
import { formatDateTime } from "@/lib/format";
import { Button } from "./Button";

/** Keys (never the secret itself) with their state, each revocable while active. */
export function KeyTable({ keys, onRevoke }: { keys: Key[]; onRevoke: (keyId: string) => void }) {
  const { t, i18n } = useTranslation();
  if (keys.length === 0) return <p className="text-sm text-muted">{t("keys.none")}</p>;
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="text-muted">
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
        <tbody>
          {keys.map((key) => (
            <tr key={key.key_id} className="border-t border-line">
              <td className="p-2">{key.label || <span className="font-mono text-muted">{key.key_id}</span>}</td>
              <td className="p-2">{t(`keys.${key.lifecycle}`)}</td>
              <td className="p-2">{formatDateTime(key.created_at, i18n.language)}</td>
              <td className="p-2">{key.active ? t("keys.active") : t("keys.inactive")}</td>
              <td className="p-2 text-right">
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
