/**
 * Whether the addresses typed in compose are deliverable, by
 * `GET /me/addresses/check` (the verdict a send would give, without sending):
 * checked when a field is left and again before sending. A verdict belongs
 * to the address it was asked for, so editing the field hides it at once
 * and a late answer for an older value shows nothing.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, type AddressCheck } from "@/api";
import { errorText } from "@/lib/errorText";
import { addressCheckQuery } from "../api/queries";

export type AddressProblem = { address: string; message: string };

export function useAddressChecks() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  // The verdict's refusal, said as the send's would be (by its code).
  const say = useCallback((error: { code: string; message: string }) => errorText(new ApiError(422, error.code, error.message), t), [t]);
  const [verdicts, setVerdicts] = useState<Record<string, AddressCheck>>({});

  const check = useCallback(
    /** `replyTo`: the mail the addresses answer, for the To field of a reply (as the send routes it). */
    async (addresses: string[], replyTo: string | null = null): Promise<AddressProblem[]> => {
      const wanted = [...new Set(addresses.map((a) => a.trim()).filter(Boolean))];
      const answers = await Promise.all(
        wanted.map((address) =>
          queryClient
            .fetchQuery(addressCheckQuery(address, replyTo))
            // The check only explains early; when it cannot answer, the send still will.
            .catch(() => null),
        ),
      );
      const found = answers.filter((a): a is AddressCheck => a !== null);
      setVerdicts((old) => ({ ...old, ...Object.fromEntries(found.map((a) => [a.address, a])) }));
      return found.flatMap((a) => (a.deliverable || !a.error ? [] : [{ address: a.address, message: say(a.error) }]));
    },
    [queryClient, say],
  );

  /** The problems to show under a field: those of the addresses it holds now and were checked. */
  const problems = useCallback(
    (addresses: string[]): AddressProblem[] =>
      addresses.flatMap((raw) => {
        const verdict = verdicts[raw.trim()];
        return verdict && !verdict.deliverable && verdict.error ? [{ address: verdict.address, message: say(verdict.error) }] : [];
      }),
    [verdicts, say],
  );

  return { check, problems };
}
