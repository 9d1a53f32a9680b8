/**
 * Why a reply leaves someone out: an imported mail's outside sender or recipient
 * (`bob@example.com`) is not on the gateway, and the gateway sends no mail outside.
 * Said before anything is sent, so a reply never fails on it.
 */
import { useTranslation } from "react-i18next";
import { addressName } from "@/lib/format";

export function OutsideReplyNote({ outside, nobody, id }: { outside: string[]; nobody: boolean; id?: string }) {
  const { t } = useTranslation();
  if (outside.length === 0) return null;
  const addresses = outside.map(addressName).join(", ");
  return (
    <p id={id} className="text-sm text-muted wrap-anywhere" data-testid="outside-reply-note">
      {nobody ? t("outside.replyNobody", { addresses }) : t("outside.replyLeftOut", { addresses })}
    </p>
  );
}
