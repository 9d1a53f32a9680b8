/**
 * What compose asks the gateway, one key factory for each: an address's verdict
 * and where it leads (`GET /me/addresses/check`), and the upload limit (`GET /me`).
 */
import { queryOptions } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";

/** A verdict is fresh this long: the field's line and the check on leaving share it. */
const CHECK_FRESH_MS = 30_000;

export const addressKeys = {
  all: ["addresses"] as const,
  check: (address: string, replyTo: string | null) => [...addressKeys.all, "check", address, replyTo] as const,
};

export const addressCheckQuery = (address: string, replyTo: string | null = null) =>
  queryOptions({
    queryKey: addressKeys.check(address, replyTo),
    queryFn: () => sdk.checkAddress(address, replyTo),
    staleTime: CHECK_FRESH_MS,
  });

/** The gateway's limits for my uploads; null when it does not say (the upload's 413 still does). */
export const uploadLimitsQuery = () =>
  queryOptions({
    queryKey: ["me", "limits"] as const,
    queryFn: async () => (await sdk.me()).limits ?? null,
    staleTime: Infinity,
  });
