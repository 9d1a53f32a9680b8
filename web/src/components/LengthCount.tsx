/**
 * "950 / 998" under an input that has a length limit, shown as the text nears it
 * (the input's `maxLength` stops it there; a paste is cut there): the user sees
 * the limit before the gateway would refuse it. Not a live region: the input
 * names it with `aria-describedby`, read when the field is.
 */
import { useTranslation } from "react-i18next";

/** Shown from this share of the limit, or this many characters before it, whichever is later. */
const FROM_SHARE = 0.8;
const FROM_LEFT = 20;

export function nearLimit(length: number, max: number): boolean {
  return length >= Math.max(max * FROM_SHARE, max - FROM_LEFT);
}

export function LengthCount({ id, length, max }: { id: string; length: number; max: number }) {
  const { t } = useTranslation();
  if (!nearLimit(length, max)) return null;
  const full = length >= max;
  return (
    <p id={id} className={`text-xs tabular-nums ${full ? "text-danger" : "text-muted"}`}>
      {full ? t("limits.full", { max: max.toLocaleString("en-US") }) : t("limits.count", { length: length.toLocaleString("en-US"), max: max.toLocaleString("en-US") })}
    </p>
  );
}
