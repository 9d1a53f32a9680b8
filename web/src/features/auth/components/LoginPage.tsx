import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { limits } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { sdk } from "@/lib/sdk";
import { meKey } from "../api/queries";

/** Sign in with a user name and password; the gateway sets an HttpOnly session cookie. */
export function LoginPage() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const ids = { user: useId(), password: useId() };
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit() {
    setBusy(true);
    setError(null);
    try {
      const { user } = await sdk.login(username.trim(), password);
      queryClient.setQueryData(meKey, user);
    } catch (cause) {
      setError(cause);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="flex min-h-full items-center justify-center p-4">
      <form
        className="flex w-full max-w-sm flex-col gap-4 rounded-xl border border-line bg-surface p-6 shadow-sm"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h1 className="text-2xl font-semibold">{t("app.name")}</h1>
        <p className="text-sm text-muted">{t("login.intro")}</p>
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.user} className="text-sm font-medium">
            {t("login.username")}
          </label>
          <input
            id={ids.user}
            autoComplete="username"
            required
            autoFocus
            value={username}
            maxLength={limits.schemas.LoginBody.username.maxLength}
            onChange={(e) => setUsername(e.target.value)}
            className="min-h-11 rounded-md border border-line bg-canvas px-3"
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.password} className="text-sm font-medium">
            {t("login.password")}
          </label>
          <input
            id={ids.password}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            maxLength={limits.schemas.LoginBody.password.maxLength}
            onChange={(e) => setPassword(e.target.value)}
            className="min-h-11 rounded-md border border-line bg-canvas px-3"
          />
        </div>
        <ErrorNote error={error} words={{ codes: { unauthorized: t("errors.code.wrongLogin") } }} />
        <Button type="submit" variant="primary" disabled={busy} className="min-h-11">
          {busy ? t("login.signingIn") : t("login.signIn")}
        </Button>
      </form>
    </main>
  );
}
