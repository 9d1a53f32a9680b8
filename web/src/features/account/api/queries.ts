import { queryOptions } from "@tanstack/react-query";
import { sdk } from "@/lib/sdk";

export const accountKeys = {
  keys: ["me", "keys"] as const,
  mailSettings: ["me", "mail-settings"] as const,
  externalAddresses: ["me", "external-addresses"] as const,
};

export const keysQuery = () =>
  queryOptions({ queryKey: accountKeys.keys, queryFn: async () => (await sdk.listKeys()).keys });

/** What a mail client needs (`GET /me/mail-settings`): it changes only with the server's settings. */
export const mailSettingsQuery = () =>
  queryOptions({ queryKey: accountKeys.mailSettings, queryFn: () => sdk.mailSettings(), staleTime: 10 * 60_000 });

/** My mailboxes outside the gateway (`GET /me/external-addresses`). */
export const externalAddressesQuery = () =>
  queryOptions({ queryKey: accountKeys.externalAddresses, queryFn: async () => (await sdk.externalAddresses()).addresses });
