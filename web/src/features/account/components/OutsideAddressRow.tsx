/**
 * One outside address: verified or waiting for its code (the code field, "ask for a
 * new one"), the two choices of where mail goes (requests and questions; other mail),
 * and removing it, after asking.
 */
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import type { ExternalAddress } from "@/api";
import { Button } from "@/components/Button";
import { ConfirmDialog } from "@/components/ConfirmDialog";
import { ErrorNote } from "@/components/ErrorNote";
import { sdk } from "@/lib/sdk";
import { useAddressWords } from "./addressWords";

export function OutsideAddressRow({ address, onChange }: { address: ExternalAddress; onChange: () => void }) {
  const { t } = useTranslation();
  const ids = { code: useId(), note: useId(), requests: useId(), other: useId() };
  const words = useAddressWords();
  const [code, setCode] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [resent, setResent] = useState(false);
  const id = address.address_id;
  const verify = useMutation({ mutationFn: () => sdk.verifyExternalAddress(id, code.trim()), onSuccess: onChange });
  const resend = useMutation({
    mutationFn: () => sdk.resendCode(id),
    onSuccess: () => {
      setResent(true);
      verify.reset();
    },
  });
  const choose = useMutation({
    mutationFn: (body: { requests?: boolean; other_mail?: boolean }) => sdk.changeExternalAddress(id, body),
    onSettled: onChange,
  });
  const choices = [
    ["requests", ids.requests, t("externalAddresses.requests")],
    ["other_mail", ids.other, t("externalAddresses.otherMail")],
  ] as const;
  return (
    <li className="flex flex-col gap-2 py-3 text-sm">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="min-w-0 flex-1 font-mono break-all">{address.address}</span>
        {address.verified ? (
          <span className="rounded bg-ok-soft px-2 py-0.5 text-xs text-ok">{t("externalAddresses.verified")}</span>
        ) : (
          <span className="rounded bg-warn-soft px-2 py-0.5 text-xs text-warn">{t("externalAddresses.unverified")}</span>
        )}
        <Button variant="danger" onClick={() => setConfirming(true)}>
          {t("common.remove")}
          {" "}<span className="sr-only">{address.address}</span>
        </Button>
      </div>
      {address.verified ? null : (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            verify.mutate();
          }}
        >
          <p id={ids.note} className="w-full text-muted">
            {resent ? t("externalAddresses.codeResent", { address: address.address }) : t("externalAddresses.codeSent", { address: address.address, minutes: 30 })}
          </p>
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.code}>{t("externalAddresses.code")}</label>
            <input
              id={ids.code}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={20}
              aria-describedby={ids.note}
              className="min-h-10 w-32 rounded-md border border-line bg-canvas px-2 font-mono text-sm tracking-widest max-md:min-h-11"
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </div>
          <Button type="submit" variant="primary" disabled={verify.isPending || !code.trim()}>
            {t("externalAddresses.verify")}
          </Button>
          <Button disabled={resend.isPending} onClick={() => resend.mutate()}>
            {t("externalAddresses.resend")}
          </Button>
        </form>
      )}
      <ErrorNote error={verify.error} words={words.verify} />
      <ErrorNote error={resend.error} words={words.resend} />
      <fieldset className="flex flex-wrap gap-x-4 gap-y-1">
        <legend className="sr-only">{t("externalAddresses.choices", { address: address.address })}</legend>
        {choices.map(([field, id, label]) => (
          <label key={field} htmlFor={id} className="flex min-h-9 items-center gap-2 max-md:min-h-11">
            <input
              id={id}
              type="checkbox"
              checked={address[field]}
              disabled={choose.isPending}
              onChange={(e) => choose.mutate({ [field]: e.target.checked })}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <ErrorNote error={choose.error} />
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={t("externalAddresses.removeTitle", { address: address.address })}
        description={t("externalAddresses.removeHint")}
        action={t("common.remove")}
        onConfirm={() => sdk.deleteExternalAddress(id).then(onChange)}
      />
    </li>
  );
}
