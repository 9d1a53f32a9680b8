/**
 * The alias of the conversation a `….new` address opens: it follows the subject
 * (as the gateway would make it) until the person types their own. Only a typed
 * alias is sent; one that follows the subject is left to the gateway, which
 * names the conversation from its subject in every script.
 */
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { limits } from "@/api";
import { aliasFromSubject, isValidAlias } from "../aliasFromSubject";

export interface AliasFieldProps {
  /** What the person typed; null while the alias follows the subject. */
  value: string | null;
  onChange: (value: string) => void;
  subject: string;
  /** The To address, ending in `.new`. */
  to: string;
}

/** The alias to send: a typed, valid one; else null (the gateway names it from the subject). */
export function aliasToSend(value: string | null): string | null {
  const typed = value?.trim() ?? "";
  return typed && isValidAlias(typed) ? typed : null;
}

export function aliasProblem(value: string | null): boolean {
  const typed = value?.trim() ?? "";
  return typed !== "" && !isValidAlias(typed);
}

export function AliasField({ value, onChange, subject, to }: AliasFieldProps) {
  const { t } = useTranslation();
  const id = useId();
  const shown = value ?? aliasFromSubject(subject) ?? "";
  const invalid = aliasProblem(value);
  const later = shown.trim() && !invalid ? `${to.trim().slice(0, -".new".length)}.${shown.trim().toLowerCase()}` : null;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {t("compose.alias")}
      </label>
      <input
        id={id}
        value={shown}
        onChange={(e) => onChange(e.target.value)}
        placeholder={t("compose.aliasFromSubject")}
        maxLength={limits.schemas.SendRequest.session_alias.maxLength}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={invalid || undefined}
        aria-describedby={`${id}-hint`}
        className="min-h-10 rounded-md border border-line bg-canvas px-2 font-mono text-sm max-md:min-h-11"
      />
      {invalid ? (
        <p id={`${id}-hint`} role="alert" className="text-sm text-danger">
          {t("compose.aliasInvalid")}
        </p>
      ) : (
        <p id={`${id}-hint`} className="text-xs break-all text-muted">
          {later ? t("compose.aliasHint", { address: later }) : null}
        </p>
      )}
    </div>
  );
}
