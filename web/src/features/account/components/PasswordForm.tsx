/**
 * Change my password (`POST /me/password`): the current one, the new one
 * twice. The API's refusals appear where they belong, by the inputs they
 * name (`fields`): a wrong current password under that field, a too-short
 * new one under the new (said here before asking, from the API's bound), a
 * throttle (429) with the time left from `Retry-After`, the button waiting
 * it out. A 401 that names no field is a login that has ended.
 */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, limits, type FieldError } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { fieldText } from "@/lib/errorText";
import { sdk } from "@/lib/sdk";
import { useNow } from "@/lib/useNow";

const BOUNDS = limits.schemas.PasswordChange;

type Field = "current" | "next" | "confirm";
const API_FIELDS: Record<string, Field> = { current_password: "current", new_password: "next" };

/** The form's input a refusal names, and what it says is wrong there. */
function problemOf(error: unknown): { at: Field; problem: FieldError } | null {
  if (!(error instanceof ApiError)) return null;
  for (const problem of error.fields) {
    const at = API_FIELDS[problem.field];
    if (at) return { at, problem };
  }
  return null;
}

export function PasswordForm() {
  const { t } = useTranslation();
  const ids = { current: useId(), next: useId(), confirm: useId() };
  const [values, setValues] = useState<Record<Field, string>>({ current: "", next: "", confirm: "" });
  const [error, setError] = useState<unknown>(null);
  const [mismatch, setMismatch] = useState(false);
  const [busy, setBusy] = useState(false);
  const [changed, setChanged] = useState(false);
  const [retry, setRetry] = useState<{ from: number; until: number } | null>(null);
  // `now` ticks only while waiting and starts from when it was last read: never before `from`.
  const now = Math.max(useNow(retry !== null), retry?.from ?? 0);
  const waitSeconds = retry === null ? 0 : Math.max(0, Math.ceil((retry.until - now) / 1000));
  const throttled = waitSeconds > 0;

  const set = (field: Field, value: string) => {
    setValues((old) => ({ ...old, [field]: value }));
    setChanged(false);
    if (field !== "current" || problemOf(error)?.at === "current") setError(null);
    if (field !== "current") setMismatch(false);
  };

  async function submit() {
    setChanged(false);
    setError(null);
    if (values.next.length < BOUNDS.new_password.minLength) {
      const problem: FieldError = { field: "new_password", code: "too_short", limit: BOUNDS.new_password.minLength };
      setError(new ApiError(422, "invalid_request", "", null, [problem]));
      return;
    }
    if (values.next !== values.confirm) {
      setMismatch(true);
      return;
    }
    setBusy(true);
    try {
      await sdk.changePassword(values.current, values.next);
      setValues({ current: "", next: "", confirm: "" });
      setChanged(true);
    } catch (cause) {
      setError(cause);
      if (cause instanceof ApiError && cause.status === 429) {
        const from = Date.now();
        setRetry({ from, until: from + (cause.retryAfter ?? 60) * 1000 });
      }
    } finally {
      setBusy(false);
    }
  }

  const found = problemOf(error);
  const at = found?.at ?? null;
  const messageOf = (field: Field) => (found && found.at === field ? fieldText(found.problem, t) : null);
  const maxLength = { current: BOUNDS.current_password.maxLength, next: BOUNDS.new_password.maxLength, confirm: BOUNDS.new_password.maxLength };
  const input = (field: Field, label: string, message: string | null, autoComplete: string, hint?: string) => (
    <div className="flex flex-col gap-1">
      <label htmlFor={ids[field]} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={ids[field]}
        type="password"
        value={values[field]}
        onChange={(e) => set(field, e.target.value)}
        autoComplete={autoComplete}
        maxLength={maxLength[field]}
        required
        aria-invalid={message ? true : undefined}
        aria-describedby={[hint ? `${ids[field]}-hint` : "", message ? `${ids[field]}-error` : ""].join(" ").trim() || undefined}
        className="min-h-10 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
      />
      {hint ? (
        <p id={`${ids[field]}-hint`} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
      {message ? (
        <p id={`${ids[field]}-error`} role="alert" className="text-sm text-danger">
          {message}
        </p>
      ) : null}
    </div>
  );

  return (
    <form
      className="flex max-w-sm flex-col gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {input("current", t("password.current"), messageOf("current"), "current-password")}
      {input("next", t("password.new"), messageOf("next"), "new-password", t("password.minHint", { limit: BOUNDS.new_password.minLength }))}
      {input("confirm", t("password.confirm"), mismatch ? t("password.mismatch") : null, "new-password")}
      {error && at === null && !(error instanceof ApiError && error.status === 429) ? <ErrorNote error={error} /> : null}
      {throttled ? (
        <p role="alert" className="text-sm text-danger">
          {t("errors.code.rateLimited")}
        </p>
      ) : null}
      <Button type="submit" variant="primary" className="self-start" disabled={busy || throttled}>
        {busy ? t("password.changing") : throttled ? t("password.retryIn", { seconds: waitSeconds }) : t("password.change")}
      </Button>
      {changed ? (
        <p role="status" className="text-sm text-ok">
          {t("password.changed")}
        </p>
      ) : null}
    </form>
  );
}
