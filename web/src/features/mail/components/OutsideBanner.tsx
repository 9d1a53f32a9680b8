/**
 * The mark of a mail stored from outside (`mail.outside`): a verified reply says so;
 * any other says it was not verified, why, and that it decided nothing. The
 * Authentication-Results the gateway recorded are one click away.
 */
import { useTranslation } from "react-i18next";
import type { OutsideMark } from "@/api";

function useReason(): (mark: OutsideMark) => string {
  const { t } = useTranslation();
  return (mark) => {
    switch (mark.reason_code) {
      case "other_address":
        return t("outsideMark.reason.otherAddress");
      case "no_domain_proof":
        return t("outsideMark.reason.noDomainProof");
      case "already_used":
        return t("outsideMark.reason.alreadyUsed");
      case "address_gone":
        return t("outsideMark.reason.addressGone");
      case "not_a_reply":
        return t("outsideMark.reason.notAReply");
      default:
        return mark.reason;
    }
  };
}

export function OutsideBanner({ mark }: { mark: OutsideMark }) {
  const { t } = useTranslation();
  const reason = useReason();
  const verified = mark.verified;
  return (
    <aside
      aria-label={t("outsideMark.label")}
      className={`flex flex-col gap-1 rounded-md border p-3 text-sm ${verified ? "border-ok bg-ok-soft" : "border-warn bg-warn-soft"}`}
    >
      <p className={`wrap-anywhere ${verified ? "text-ok" : "text-warn"}`}>
        {verified
          ? t("outsideMark.verified", { sender: mark.sender })
          : t("outsideMark.notVerified", { sender: mark.sender, reason: reason(mark) })}
      </p>
      {verified && mark.decided ? <p>{t("outsideMark.decided")}</p> : null}
      {mark.authentication_results ? (
        <details>
          <summary className="cursor-pointer text-muted">{t("outsideMark.details")}</summary>
          <pre className="mt-1 font-mono text-xs break-all whitespace-pre-wrap">{mark.authentication_results}</pre>
        </details>
      ) : null}
    </aside>
  );
}
