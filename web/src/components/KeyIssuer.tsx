/**
 * Issue a key (label, lifecycle, expiry); the key is shown once, with a copy
 * button. With `clientKey`, a key the client generated itself can be
 * registered instead (agent keys: the key never has to be sent back).
 */
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { IssuedKey } from "@/api";
import { Button } from "./Button";
import { ErrorNote } from "./ErrorNote";
import { ShownOnce } from "./ShownOnce";

export type Lifecycle = "permanent" | "one_time" | "timed";

export interface KeyIssuerProps {
  onIssue: (label: string, lifecycle: Lifecycle, expiresIn?: string, clientKey?: string) => Promise<IssuedKey>;
  /** Offer a field for a client-generated key: its label and hint. */
  clientKey?: { label: string; hint: string };
}

export function KeyIssuer({ onIssue, clientKey }: KeyIssuerProps) {
  const { t } = useTranslation();
  const ids = { label: useId(), lifecycle: useId(), expires: useId(), key: useId() };
  const [ownKey, setOwnKey] = useState("");
  const [label, setLabel] = useState("");
  const [lifecycle, setLifecycle] = useState<Lifecycle>("permanent");
  const [expiresIn, setExpiresIn] = useState("7d");
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const [error, setError] = useState<unknown>(null);
  const input = "min-h-10 rounded-md border border-line bg-canvas px-2 text-sm max-md:min-h-11";
  return (
    <div className="flex flex-col gap-2">
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          onIssue(label, lifecycle, lifecycle === "timed" ? expiresIn : undefined, ownKey.trim() || undefined).then((key) => {
            setIssued(key);
            setOwnKey("");
          }, setError);
        }}
      >
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.label} className="text-sm">
            {t("keys.label")}
          </label>
          <input id={ids.label} className={input} value={label} onChange={(e) => setLabel(e.target.value)} />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={ids.lifecycle} className="text-sm">
            {t("keys.lifecycle")}
          </label>
          <select id={ids.lifecycle} className={input} value={lifecycle} onChange={(e) => setLifecycle(e.target.value as Lifecycle)}>
            <option value="permanent">{t("keys.permanent")}</option>
            <option value="timed">{t("keys.timed")}</option>
            <option value="one_time">{t("keys.one_time")}</option>
          </select>
        </div>
        {lifecycle === "timed" ? (
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.expires} className="text-sm">
              {t("keys.expiresIn")}
            </label>
            <input id={ids.expires} className={`${input} w-24`} value={expiresIn} onChange={(e) => setExpiresIn(e.target.value)} />
          </div>
        ) : null}
        {clientKey ? (
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.key} className="text-sm">
              {clientKey.label}
            </label>
            <input
              id={ids.key}
              className={`${input} font-mono`}
              value={ownKey}
              maxLength={512}
              autoComplete="off"
              spellCheck={false}
              aria-describedby={`${ids.key}-hint`}
              onChange={(e) => setOwnKey(e.target.value)}
            />
            <span id={`${ids.key}-hint`} className="text-xs text-muted">
              {clientKey.hint}
            </span>
          </div>
        ) : null}
        <Button type="submit" variant="primary">
          {t("keys.issue")}
        </Button>
      </form>
      <ErrorNote error={error} words={{ fields: { "expires_in.format": () => t("errors.specific.duration") } }} />
      {issued?.key ? <ShownOnce value={issued.key} note={t("keys.shownOnce")} label={t("keys.key")} /> : null}
    </div>
  );
}
