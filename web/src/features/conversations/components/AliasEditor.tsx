/**
 * The conversation's alias, renamed in place: click, type, Enter (Escape cancels).
 * An alias that breaks the grammar is said at once, in the words the gateway's
 * refusal would get (ARCHITECTURE.md, "Grammar").
 */
import { Icon } from "@/components/Icon";
import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { limits } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { LengthCount, nearLimit } from "@/components/LengthCount";

const MAX_ALIAS = limits.schemas.SessionChange.session_alias.maxLength;
const ALIAS = /^[a-z0-9][a-z0-9_-]*$/;

export interface AliasEditorProps {
  alias: string | null;
  onRename: (alias: string) => Promise<unknown>;
}

export function AliasEditor({ alias, onRename }: AliasEditorProps) {
  const { t } = useTranslation();
  const inputId = useId();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(alias ?? "");
  const [error, setError] = useState<unknown>(null);
  const [malformed, setMalformed] = useState(false);
  const [saving, setSaving] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);

  if (!editing) {
    return (
      <button
        type="button"
        onClick={() => {
          setValue(alias ?? "");
          setError(null);
          setMalformed(false);
          setEditing(true);
        }}
        className="inline-flex min-h-8 max-w-full min-w-0 items-center gap-1 rounded px-1 font-mono text-sm text-accent hover:bg-raised max-md:min-h-11"
        title={`#${alias ?? t("session.noAlias")} · ${t("session.rename")}`}
      >
        <span className="truncate">#{alias ?? t("session.noAlias")}</span>
        <span className="sr-only">{t("session.rename")}</span>
        <Icon name="edit" className="size-3 text-muted" />
      </button>
    );
  }

  async function save() {
    const next = value.trim().toLowerCase();
    if (!next || next === alias) {
      setEditing(false);
      return;
    }
    if (!ALIAS.test(next) || next === "new") {
      setMalformed(true);
      return;
    }
    setSaving(true);
    try {
      await onRename(next);
      setEditing(false);
    } catch (cause) {
      setError(cause);
    } finally {
      setSaving(false);
    }
  }

  return (
    <form
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label htmlFor={inputId} className="sr-only">
        {t("session.alias")}
      </label>
      <input
        id={inputId}
        ref={input}
        value={value}
        onChange={(e) => {
          setValue(e.target.value);
          setMalformed(false);
          setError(null);
        }}
        onKeyDown={(e) => {
          if (e.key === "Escape") setEditing(false);
        }}
        maxLength={MAX_ALIAS}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={malformed || Boolean(error) || undefined}
        aria-describedby={nearLimit(value.length, MAX_ALIAS) ? `${inputId}-count` : undefined}
        className="min-h-8 min-w-0 max-w-full rounded-md border border-line bg-canvas px-2 font-mono text-sm max-md:min-h-11"
      />
      <LengthCount id={`${inputId}-count`} length={value.length} max={MAX_ALIAS} />
      <Button type="submit" variant="primary" disabled={saving}>
        {t("common.save")}
      </Button>
      <Button onClick={() => setEditing(false)}>{t("common.cancel")}</Button>
      {malformed ? (
        <p role="alert" className="w-full text-sm text-danger">
          {t("errors.specific.aliasRule")}
        </p>
      ) : null}
      <ErrorNote error={error} className="w-full" words={{ codes: { invalid_address: t("errors.specific.aliasRule") } }} />
    </form>
  );
}
