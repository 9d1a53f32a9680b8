import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "@/components/Button";
import { ErrorNote } from "@/components/ErrorNote";
import { sdk } from "@/lib/sdk";

type State = { step: "idle" | "sending" } | { step: "sent"; alias: string | null } | { step: "failed"; error: unknown };

/**
 * A test mail to myself through the normal send API: it then arrives by every
 * path (this inbox, IMAP in the mail client just set up), which is the test.
 */
export function TestMailButton({ address }: { address: string }) {
  const { t } = useTranslation();
  const [state, setState] = useState<State>({ step: "idle" });
  const send = () => {
    setState({ step: "sending" });
    sdk
      .send({ to: address, subject: t("account.testSubject"), body: t("account.testBody"), cc: [] })
      .then(
        (sent) => setState({ step: "sent", alias: sent.session_alias }),
        (error: unknown) => setState({ step: "failed", error }),
      );
  };
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Button onClick={send} disabled={state.step === "sending"}>
        {state.step === "sending" ? t("compose.sending") : t("account.sendTest")}
      </Button>
      {state.step === "sent" ? (
        <span role="status" className="text-sm text-ok">
          {t("account.testSent", { address })}
        </span>
      ) : null}
      {state.step === "failed" ? <ErrorNote error={state.error} /> : null}
    </div>
  );
}
