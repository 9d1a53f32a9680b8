import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { limits } from "@/api";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { sdk } from "@/lib/sdk";

const BOUNDS = limits.schemas.NewUser;

export function NewUserForm({ onCreated }: { onCreated: () => void }) {
  const { t } = useTranslation();
  const ids = { name: useId(), password: useId(), admin: useId() };
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [isAdmin, setIsAdmin] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const input = "min-h-10 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11";
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        sdk.createUser(name.trim(), password, isAdmin).then(() => {
          setName("");
          setPassword("");
          onCreated();
        }, setError);
      }}
    >
      <div className="flex flex-col gap-1">
        <label htmlFor={ids.name} className="text-sm">
          {t("admin.userName")}
        </label>
        <input
          id={ids.name}
          className={input}
          required
          maxLength={BOUNDS.name.maxLength}
          autoComplete="off"
          spellCheck={false}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={ids.password} className="text-sm">
          {t("login.password")}
        </label>
        <input
          id={ids.password}
          type="password"
          autoComplete="new-password"
          className={input}
          required
          maxLength={BOUNDS.password.maxLength}
          aria-describedby={`${ids.password}-hint`}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <p id={`${ids.password}-hint`} className="text-xs text-muted">
          {t("password.minHint", { limit: BOUNDS.password.minLength })}
        </p>
      </div>
      <label htmlFor={ids.admin} className="flex min-h-10 items-center gap-2 text-sm max-md:min-h-11">
        <input id={ids.admin} type="checkbox" checked={isAdmin} onChange={(e) => setIsAdmin(e.target.checked)} />
        {t("admin.isAdmin")}
      </label>
      <Button type="submit" variant="primary">
        {t("admin.createUser")}
      </Button>
      <ErrorNote
        error={error}
        className="w-full"
        words={{
          codes: { invalid_address: t("errors.specific.userNameRule") },
          fields: { "name.taken": () => t("errors.specific.userNameTaken"), "name.reserved": () => t("errors.specific.userNameReserved") },
        }}
      />
    </form>
  );
}
