/**
 * A participant as lists, headers and the tree show it: an agent's or person's name,
 * or, for an outside sender or recipient of imported mail, their mail address with
 * an "outside" mark (they are not on the gateway: no reply reaches them).
 */
import { useTranslation } from "react-i18next";
import { addressName, isOutside } from "@/lib/format";

/** The small mark after an outside address; its full meaning for screen readers and on hover. */
export function OutsideMark() {
  const { t } = useTranslation();
  return (
    <span
      className="shrink-0 rounded border border-line px-1 text-[0.7rem] leading-4 font-normal text-muted"
      title={t("outside.title")}
      data-outside=""
    >
      <span aria-hidden="true">{t("outside.mark")}</span>
      <span className="sr-only">{t("outside.label")}</span>
    </span>
  );
}

/** `full`: the whole native address (the reading pane), else the name part (lists). */
export function PartyName({ address, full = false }: { address: string; full?: boolean }) {
  if (!isOutside(address)) return <>{full ? address : addressName(address)}</>;
  return (
    <span className="inline-flex min-w-0 max-w-full items-center gap-1 align-baseline">
      <span className="min-w-0 truncate">{addressName(address)}</span>
      <OutsideMark />
    </span>
  );
}
