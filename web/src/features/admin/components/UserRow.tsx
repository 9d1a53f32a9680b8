/**
 * One user in Admin: name, address, the admin flag (a checkbox: the gateway
 * refuses to take it from the last admin, and says so), and a password reset,
 * which ends that user's web logins.
 */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { limits, type User } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { sdk } from "@/lib/sdk";

const BOUNDS = limits.schemas.PasswordReset.new_password;

export function UserRow({ user, onChanged }: { user: User; onChanged: () => void }) {
  const { t } = useTranslation();
  const ids = { admin: useId(), password: useId() };
  const [resetting, setResetting] = useState(false);
  const [password, setPassword] = useState("");
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const toggleAdmin = (isAdmin: boolean) => {
    setError(null);
    sdk.setAdmin(user.name, isAdmin).then(onChanged, setError);
  };
  const reset = () => {
    setError(null);
    sdk.resetPassword(user.name, password).then(() => {
      setPassword("");
      setResetting(false);
      setDone(true);
    }, setError);
  };

  return (
    <li className="flex flex-col gap-2 p-2 text-sm">
      <div className="flex flex-wrap items-center gap-3">
        <span className="min-w-0 font-medium wrap-anywhere">{user.name}</span>
        <span className="min-w-0 font-mono text-muted wrap-anywhere">{user.email}</span>
        <label htmlFor={ids.admin} className="ml-auto flex min-h-9 items-center gap-2 max-md:min-h-11">
          <input id={ids.admin} type="checkbox" checked={user.is_admin} onChange={(e) => toggleAdmin(e.target.checked)} />
          {t("admin.isAdmin")}
          <span className="sr-only">: {user.name}</span>
        </label>
        {!resetting ? (
          <Button variant="ghost" onClick={() => {
              setResetting(true);
              setDone(false);
            }}>
            {t("admin.resetPassword")}
            <span className="sr-only">: {user.name}</span>
          </Button>
        ) : null}
      </div>
      {resetting ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            reset();
          }}
        >
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.password}>{t("admin.newPasswordFor", { name: user.name })}</label>
            <input
              id={ids.password}
              type="password"
              autoComplete="new-password"
              maxLength={BOUNDS.maxLength}
              required
              aria-describedby={`${ids.password}-hint`}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              className="min-h-10 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11"
            />
            <p id={`${ids.password}-hint`} className="text-xs text-muted">
              {t("password.minHint", { limit: BOUNDS.minLength })}
            </p>
          </div>
          <Button type="submit" variant="primary">
            {t("admin.setPassword")}
          </Button>
          <Button variant="ghost" onClick={() => setResetting(false)}>
            {t("common.cancel")}
          </Button>
        </form>
      ) : null}
      {done ? (
        <p role="status" className="text-ok">
          {t("admin.passwordReset", { name: user.name })}
        </p>
      ) : null}
      {/* The flag is refused (403) only when this is the last admin's. */}
      <ErrorNote error={error} words={{ codes: { forbidden: t("admin.lastAdmin") } }} />
    </li>
  );
}
