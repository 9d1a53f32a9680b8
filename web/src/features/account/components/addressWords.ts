/**
 * What a refusal of the external-address calls means, in plain words: the API's codes
 * are general (`invalid_request`), and here each call has only one reason for one
 * (core/replies/addresses.py and codes.py) — adding or resending without a smarthost,
 * verifying with a code that is wrong, expired or tried too often.
 */
import { useTranslation } from "react-i18next";
import type { ErrorWords } from "@/lib/errorText";

export function useAddressWords(): { add: ErrorWords; resend: ErrorWords; verify: ErrorWords } {
  const { t } = useTranslation();
  const codesPerHour = t("externalAddresses.error.codesPerHour", { max: 5 });
  const notConfigured = t("externalAddresses.error.notConfigured");
  return {
    add: {
      codes: {
        invalid_request: notConfigured,
        invalid_address: t("externalAddresses.error.invalidAddress"),
        name_taken: t("externalAddresses.error.taken"),
        limit_reached: t("externalAddresses.error.tooMany", { max: 5 }),
        rate_limited: codesPerHour,
      },
      fields: { "address.too_short": () => t("externalAddresses.error.invalidAddress") },
    },
    resend: { codes: { invalid_request: notConfigured, rate_limited: codesPerHour } },
    verify: {
      codes: { invalid_request: t("externalAddresses.error.codeRefused", { minutes: 30 }) },
      fields: { "code.format": () => t("externalAddresses.error.codeFormat") },
    },
  };
}
