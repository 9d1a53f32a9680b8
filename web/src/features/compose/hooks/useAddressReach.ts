/**
 * Where the To address leads, asked while it is typed (debounced, as suggestions
 * are): the verdict of `GET /me/addresses/check`, shared with the check made when
 * the field is left. Only a verdict for the address the field holds now is given,
 * so a line under the field never describes an address that is no longer there.
 */
import { useQuery } from "@tanstack/react-query";
import type { AddressReach } from "@/api";
import { useDebouncedValue } from "@/lib/useDebouncedValue";
import { addressCheckQuery } from "../api/queries";

const SETTLE_MS = 250;

export function useAddressReach(to: string, replyTo: string | null): AddressReach | null {
  const address = to.trim();
  const settled = useDebouncedValue(address, SETTLE_MS);
  const { data } = useQuery({ ...addressCheckQuery(settled, replyTo), enabled: settled.includes("@") });
  if (!data || data.address !== address || !data.deliverable) return null;
  return data.reaches;
}
